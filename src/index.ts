// The public API of Trestle: everything an application imports.

export { createApp, sendResponse } from './app.js';
export type { CreateAppOptions, TrestleApp } from './app.js';
export type { AppContext, AppTypes, AppDatabase, ServiceMap, ServiceRegistry, PluginClass } from './context.js';
export { resolveSettings, defaultSettings } from './settings.js';
export type { Settings, SettingsInput } from './settings.js';

export * from './exceptions.js';
export { isOutageError, OutageLog, outageKind, reportOutage } from './outage.js';
export { ApiRequest } from './request.js';
export type { PathParams } from './request.js';
export { Response, patchVary } from './response.js';
export { HostValidator, ProxyTrust, splitDomainPort } from './hosts.js';
export { parseMediaType, parseAccept, mediaTypeMatches } from './media-types.js';
export type { MediaType } from './media-types.js';
export { negotiateRenderer } from './negotiation.js';

export type { Renderer, RendererClass, RenderContext } from './renderers/base.js';
export { JSONRenderer } from './renderers/json.js';
export type { Parser, ParserClass, ParseResult, UploadedFile } from './parsers/base.js';
export { JSONParser } from './parsers/json.js';
export { FormParser } from './parsers/form.js';
export { MultiPartParser } from './parsers/multipart.js';

export { path, include } from './routing/routes.js';
export type { RouteEntry, RouteDef, IncludeDef } from './routing/routes.js';
export { registerConverter } from './routing/converters.js';
export type { PathConverter } from './routing/converters.js';
export { RouteRegistry, NoReverseMatch } from './routing/registry.js';
export type { ReverseParams } from './routing/registry.js';
export { reverse } from './routing/reverse.js';
export type { RouteMatch } from './routing/types.js';
export { SimpleRouter, DefaultRouter } from './routing/router.js';
export type { ExtraAction } from './routing/router.js';

export { APIView, HTTP_METHOD_NAMES } from './views/api-view.js';
export type { Handler, HandlerResult, ViewTarget, ViewPolicies } from './views/api-view.js';
export { apiView } from './views/function-view.js';
export type { FunctionViewOptions } from './views/function-view.js';
export {
  GenericAPIView,
  ListAPIView,
  RetrieveAPIView,
  CreateAPIView,
  UpdateAPIView,
  DestroyAPIView,
  ListCreateAPIView,
  RetrieveUpdateAPIView,
  RetrieveDestroyAPIView,
  RetrieveUpdateDestroyAPIView,
} from './views/generics.js';
export type { SerializeContext, ValidateContext } from './views/generics.js';
export { ViewSet, GenericViewSet, ModelViewSet, ReadOnlyModelViewSet } from './views/viewsets.js';
export type { ActionMap } from './views/viewsets.js';

export type { Authentication, AuthenticationClass } from './authentication/base.js';
export { AllowAny, IsAuthenticated, SAFE_METHODS } from './permissions.js';
export type { Permission, PermissionClass } from './permissions.js';
export type { Throttle, ThrottleClass, ThrottleDecision } from './throttling/base.js';
export type { Pagination, PaginationClass, Source, OpenAPIParameter } from './pagination/base.js';
export { BaseVersioning } from './versioning/base.js';
export type { Versioning, VersioningClass } from './versioning/base.js';

export { AnonymousUser } from './users/user.js';
export type { User } from './users/user.js';

// --- serializers
export {
  Field,
  FieldError,
  CharField,
  EmailField,
  URLField,
  SlugField,
  UUIDField,
  IntegerField,
  FloatField,
  DecimalField,
  BooleanField,
  DateField,
  DateTimeField,
  TimeField,
  ChoiceField,
  MultipleChoiceField,
  ListField,
  DictField,
  JSONField,
  SerializerMethodField,
  computed,
  RelatedField,
  PrimaryKeyRelatedField,
  SlugRelatedField,
  HyperlinkedRelatedField,
  HyperlinkedIdentityField,
  Serializer,
  serializer,
  fields,
  nested,
  string,
  email,
  url,
  slug,
  uuid,
  integer,
  float,
  decimal,
  boolean,
  date,
  datetime,
  time,
  choice,
  multipleChoice,
  list,
  dict,
  json,
  primaryKeyRelated,
  slugRelated,
  hyperlinkedRelated,
  hyperlinkedIdentity,
  UniqueValidator,
  UniqueTogetherValidator,
  ModelSerializer,
  ManyRelatedField,
  modelSerializer,
} from './serializers/index.js';
export type {
  FieldContext,
  FieldFlags,
  FieldInfo,
  FieldOptions,
  Infer,
  InputOf,
  OutputOf,
  RelatedQueryset,
  SerializerOptions,
  Shape,
  ValidateOptions,
  FieldValidator,
  ValidatorContext,
  UniqueQueryset,
  UniqueLookup,
  UniqueValidatorOptions,
  UniqueTogetherValidatorOptions,
  ModelSerializerOptions,
  ModelShape,
  ExtraKwargs,
  RelatedRow,
} from './serializers/index.js';
export { constraintViolation, type ConstraintViolation } from './db/constraint-errors.js';
export type { DecimalOptions as DecimalFieldOptions, DecimalRounding, JSONOptions as JSONFieldOptions } from './serializers/fields.js';

// --- versioning
export { VersionConflict, deprecationHeaders } from './versioning/base.js';
export type { VersionDeprecation, VersionSource } from './versioning/base.js';
export { AcceptHeaderVersioning } from './versioning/accept-header.js';
export { URLPathVersioning } from './versioning/url-path.js';
export { NamespaceVersioning } from './versioning/namespace.js';
export { HostNameVersioning } from './versioning/host-name.js';
export { QueryParameterVersioning } from './versioning/query-parameter.js';
export { XAPIVersionScheme } from './versioning/x-api-version.js';
export { byVersion } from './versioning/by-version.js';
export type { VersionSelector } from './versioning/by-version.js';
export { listVersions } from './versioning/describe.js';
export type { VersioningDescription, VersionLocation } from './versioning/describe.js';

// --- pagination
export {
  BasePagination,
  PageNumberPagination,
  LimitOffsetPagination,
  CursorPagination,
  NestedLinksPagination,
  LinkHeaderPagination,
  pageSource,
  pythonInt,
  positiveInt,
  PythonValueError,
} from './pagination/index.js';
export type {
  CountStrategy,
  CountStrategyView,
  Cursor,
  OrderingView,
  PageSource,
  OrderTerm,
  PageNumberState,
  LimitOffsetState,
} from './pagination/index.js';

// --- filters
export { BaseFilterBackend, SearchFilter, OrderingFilter, FilterSetBackend, filterSet, searchSmartSplit, isOrderingBackend, isQuery } from './filters/index.js';
export { foldCase } from './utils/case-fold.js';
export { registerSqliteFunctions, SQLITE_FOLD_FUNCTION } from './db/sqlite-functions.js';
export type {
  FilterBackend,
  FilterBackendClass,
  FilterControl,
  OrderingBackend,
  SearchView,
  FilterLookup,
  FilterSet,
  FilterSetView,
  FilterSpec,
  FilterType,
  FiltersetFields,
  ModelFilterInfo,
  ModelPath,
  RelationHop,
} from './filters/index.js';

// --- tokens
export {
  TokenStore,
  ObtainAuthToken,
  obtainAuthToken,
  generateKey,
  digestKey,
  KeyCipher,
  TokenKeyUnavailable,
  TokenError,
  tokenStoreFor,
} from './authtoken/index.js';
export type { Token, TokenInfo, TokenLookup, TokenStoreOptions, UserRef, TokenTable } from './authtoken/index.js';
export { TokenAuthentication } from './authentication/token.js';
export { resolveSecretKey, checkProductionSettings, SECRET_KEY_FILE } from './secret-key.js';
export type { ResolveSecretKeyOptions } from './secret-key.js';

// --- authentication, permissions, throttling
export { BasicAuthentication, pythonB64decode } from './authentication/basic.js';
export { SessionAuthentication } from './authentication/session.js';
export { RemoteUserAuthentication } from './authentication/remote-user.js';
export {
  enforceCsrf,
  checkCsrf,
  getCsrfToken,
  ensureCsrfCookie,
  rotateCsrfToken,
  maskCipherSecret,
  unmaskCipherToken,
  csrfTokenMatches,
  newCsrfSecret,
  CSRF_SECRET_LENGTH,
  CSRF_TOKEN_LENGTH,
  CSRF_COOKIE_AGE,
} from './authentication/csrf.js';
export { IsAdminUser, IsAuthenticatedOrReadOnly, and, or, not } from './permissions.js';
export { timingSafeEqual } from './security.js';
export { login, logout, getSession, sessionStore, SESSION_USER_KEY } from './sessions/session.js';
export type { LoadedSession } from './sessions/session.js';
export type { SessionStore, SessionData } from './sessions/store.js';
export { MemorySessionStore } from './sessions/memory-store.js';
export { DatabaseSessionStore } from './sessions/database-store.js';
export type { SessionTable } from './sessions/database-store.js';
export { RedisSessionStore } from './sessions/redis-store.js';
export { LoginView, LogoutView, LoginPageRenderer, authRoutes, isSafeRedirectPath } from './sessions/views.js';
export { redisClient } from './redis.js';
export { SimpleRateThrottle, parseRate, throttleStore } from './throttling/simple-rate.js';
export { AnonRateThrottle } from './throttling/anon.js';
export { UserRateThrottle } from './throttling/user.js';
export { ScopedRateThrottle } from './throttling/scoped.js';
export { MemoryThrottleStore } from './throttling/store.js';
export type { ThrottleStore, ThrottleHit } from './throttling/store.js';
export { RedisThrottleStore } from './throttling/redis-store.js';
export { LoginThrottle, LOGIN_FAILURE_RATE_DEFAULTS, authenticateLogin, loginThrottle } from './throttling/login.js';
export type { AuthenticateLoginOptions, LoginAttempt } from './throttling/login.js';

// --- browsable, admin, openapi
export { BrowsableAPIRenderer } from './browsable/renderer.js';
export { escapeHtml, safeHref } from './browsable/escape-html.js';
export { staticUrl } from './browsable/static-url.js';
export { renderPaginationControls, PAGINATION_TEMPLATES } from './browsable/pagination-controls.js';
export type { PaginationTemplate } from './browsable/pagination-controls.js';
export { SchemaGenerator, generateOpenAPI } from './schema/generator.js';
export type { SchemaGeneratorOptions } from './schema/generator.js';
export { SchemaView, JSONOpenAPIRenderer } from './schema/schema-view.js';
export { DocsView, DocsPageRenderer } from './schema/docs-view.js';
export type { DocsViewOptions } from './schema/docs-view.js';
export { securitySchemeFor } from './schema/security.js';
export type { DescribesSecurity, NamedSecurityScheme } from './schema/security.js';
export type { OpenAPIDocument, OpenAPIOperation, ViewOpenAPI, JsonSchema } from './schema/types.js';
export { adminRoutes, AdminView, AdminPage, AdminRenderer, AdminSite, ModelAdmin, InlineAdmin, IncorrectLookupParameters, AuthGroup, AuthPermission, UserGroup, UserPermission } from './admin/index.js';
export type { AdminRoutesOptions, AdminMessage, ModelAdminOptions, ListDisplayEntry, AdminAction, ChangeListAction, ChangeListActionContext, Fieldset, InlineOptions } from './admin/index.js';

// --- data layer, users, project
export {
  openDatabase,
  SQLITE_BUSY_TIMEOUT_MS,
  PG_STATEMENT_TIMEOUT_MS,
  withoutQueryTimeout,
  DEFAULT_DATABASE_URL,
  parseDatabaseUrl,
  redactUrl,
  dialectOf,
  migrate,
  migrateTo,
  planMigrations,
  listMigrations,
  MigrationError,
  IrreversibleMigration,
  frameworkMigrations,
} from './db/index.js';
export type {
  Database,
  OpenDatabaseOptions,
  PgPoolOptions,
  DialectName,
  DB,
  AppMigrations,
  MigrateOptions,
  MigrateResult,
  MigrationProgress,
  MigrationSet,
  MigrationStatus,
  MigrationStep,
  MigrationTarget,
  MigrateToResult,
} from './db/index.js';
export {
  UserRecord,
  KyselyUserStore,
  DuplicateUsername,
  InvalidUserData,
  UserNotFound,
  DEFAULT_SCRYPT_PARAMS,
  hashPassword,
  isUsablePassword,
  makeUnusablePassword,
  needsRehash,
  passwordHashLoad,
  setPasswordHashConcurrency,
  setPasswordHashQueueLimit,
  PasswordHashBusy,
  verifyPassword,
  DEFAULT_DJANGO_HASHERS,
  WEAK_DJANGO_HASHERS,
  importDjango,
  openDjangoSource,
} from './users/index.js';
export type {
  UserFields,
  CreateUserInput,
  ListUsersOptions,
  UserCreatedHook,
  UserSavedHook,
  UserSavedInfo,
  UserStore,
  UserUpdate,
  KyselyUserStoreOptions,
  ScryptParams,
  VerifyOptions,
  DjangoHasherName,
  DjangoImportOptions,
  DjangoImportSummary,
  DjangoSource,
  DjangoUserColumns,
} from './users/index.js';
export {
  validatePassword,
  MinimumLengthValidator,
  CommonPasswordValidator,
  NumericPasswordValidator,
  UserAttributeSimilarityValidator,
} from './users/password-validation.js';
export type { PasswordValidator, PasswordUser } from './users/password-validation.js';
export { HealthView } from './health.js';
export type { HealthState } from './health.js';
export { defineProject } from './project.js';
export type { ProjectConfig, ProjectContext, ProjectAppOptions } from './project.js';
export { settingsFromEnvironment, withOperatorEnvironment } from './environment.js';
// Project commands (`commands` in trestle.config.ts) and the CLI's error types.
export { CliError, UsageError, defineCommand } from './cli/command.js';
export type { Command, CommandArgs, CommandContext, CommandOptions, ProjectCommand, CliIO } from './cli/command.js';
export { addIdColumn, timestampType, booleanType, booleanDefault, jsonType, TIMESTAMP_TYPE, BOOLEAN_TYPE } from './db/migrations/helpers.js';
export { toDbBoolean, fromDbBoolean, toDbTimestamp, fromDbTimestamp } from './db/schema.js';
export type { DbBoolean, DbTimestamp } from './db/schema.js';
export { setCookie, clearCookie } from './cookies.js';
export type { CookieOptions } from './cookies.js';
export { model, field, Model, ModelField, RelationField, ManyToManyField, checkConstraint, uniqueConstraint, columnType, relatedObjects } from './models/index.js';
export { loadRelated, relationNames, isModelSaving } from './models/index.js';
export type { RelatedToLoad, ModelSaving, SaveContext } from './models/index.js';
export {
  migration,
  ModelMigration,
  stateOf,
  createModel,
  deleteModel,
  addField,
  removeField,
  alterField,
  renameField,
  addIndex,
  removeIndex,
  addConstraint,
  removeConstraint,
} from './models/index.js';
export type { Operation, ModelMigrationOptions, ModelState, ProjectState } from './models/index.js';
export type {
  FieldKind,
  ModelFieldOptions,
  CharOptions,
  DecimalOptions,
  DateTimeOptions,
  RelationOptions,
  OnDelete,
  Choice,
  TargetRef,
  ModelMeta,
  IndexDeclaration,
  ConstraintDeclaration,
  FieldMap,
  TableOf,
  InsertOf,
  AnyModel,
  DatabaseOf,
  ManyToManyOptions,
  JoinTableOf,
  RelatedObject,
} from './models/index.js';
export {
  runChecks,
  formatReport,
  CheckMessage,
  SystemCheckError,
  checkDebug,
  checkInfo,
  checkWarning,
  checkError,
  checkCritical,
  getCloseMatches,
  checkModels,
  DEBUG,
  INFO,
  WARNING,
  ERROR,
  CRITICAL,
} from './checks/index.js';
export type { SystemCheck, CheckContext, CheckMessageOptions, CheckReport, RunChecksOptions, MountedView, CheckLevel } from './checks/index.js';
