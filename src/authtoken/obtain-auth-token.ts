import { authenticateLogin } from '../throttling/login.js';
import type { ApiRequest } from '../request.js';
import type { AuthenticationClass } from '../authentication/base.js';
import type { PermissionClass } from '../permissions.js';
import type { ThrottleClass } from '../throttling/base.js';
import type { ParserClass } from '../parsers/base.js';
import type { RendererClass } from '../renderers/base.js';
import type { UserRecord } from '../users/user-record.js';
import type { Token } from './token-store.js';
import { APIView } from '../views/api-view.js';
import { Response } from '../response.js';
import { ApiError, ValidationError } from '../exceptions.js';
import { FormParser } from '../parsers/form.js';
import { MultiPartParser } from '../parsers/multipart.js';
import { JSONParser } from '../parsers/json.js';
import { JSONRenderer } from '../renderers/json.js';
import { TokenKeyUnavailable } from './errors.js';
import { pythonStr } from '../utils/python-str.js';

/** The fields' messages, DRF's `CharField` ones. */
const FIELD_MESSAGES = {
  required: 'This field is required.',
  null: 'This field may not be null.',
  blank: 'This field may not be blank.',
  invalid: 'Not a valid string.',
  nullCharacters: 'Null characters are not allowed.',
} as const;

/**
 * Exchanges a username and password for the user's token, as DRF's
 * `ObtainAuthToken`:
 *
 * ```
 * POST /api-token-auth/ HTTP/1.1
 * Content-Type: application/json
 *
 * {"username": "alice", "password": "s3cret"}
 * ```
 *
 * answers `200 {"token": "9944b091…"}` — the same key on every call — or 400
 * with the serializer's errors. JSON, form and multipart bodies, a JSON
 * answer whatever the settings; no authentication, permission or throttle
 * classes unless a subclass lists them. The password check costs one hash
 * whether or not the username exists, so timing does not reveal usernames.
 *
 * @example
 * class CustomAuthToken extends ObtainAuthToken {
 *   override responseData(token: Token, user: UserRecord) {
 *     return { token: token.key, user_id: user.pk, email: user.email };
 *   }
 * }
 */
export class ObtainAuthToken extends APIView {
  static override viewName = 'Obtain Auth Token';

  override authenticationClasses: AuthenticationClass[] = [];
  override permissionClasses: PermissionClass[] = [];
  override throttleClasses: ThrottleClass[] = [];
  override parserClasses: ParserClass[] = [FormParser, MultiPartParser, JSONParser];
  override rendererClasses: RendererClass[] = [JSONRenderer];

  invalidCredentialsMessage = 'Unable to log in with provided credentials.';
  missingCredentialsMessage = 'Must include "username" and "password".';
  noDataMessage = 'No data provided';

  async post(req: ApiRequest): Promise<Response> {
    const user = await this.validateCredentials(req);
    const token = await this.getToken(user);
    return new Response(this.responseData(token, user, req));
  }

  /**
   * OPTIONS: DRF's metadata plus, as for any view with a serializer,
   * `actions.POST` describing `AuthTokenSerializer`'s fields (when this
   * client passes the permission checks).
   */
  override async options(req: ApiRequest): Promise<Response> {
    const body = this.metadata();
    try {
      await this.checkPermissions(Object.create(req, { method: { value: 'POST' } }) as ApiRequest);
    } catch (err) {
      if (err instanceof ApiError) return new Response(body);
      throw err;
    }
    body['actions'] = { POST: this.describeFields() };
    return new Response(body);
  }

  /** The fields OPTIONS lists, as DRF's `SimpleMetadata` describes `AuthTokenSerializer`. */
  describeFields(): Record<string, Record<string, unknown>> {
    return {
      username: { type: 'string', required: true, read_only: false, label: 'Username' },
      password: { type: 'string', required: true, read_only: false, label: 'Password' },
      token: { type: 'string', required: false, read_only: true, label: 'Token' },
    };
  }

  /** The body of a successful answer; override to add fields. */
  responseData(token: Token, _user: UserRecord, _req: ApiRequest): Record<string, unknown> {
    return { token: token.key };
  }

  /**
   * The user's token. When the stored key cannot be shown (SECRET_KEY was
   * rotated), the user has just proved their password, so it is replaced.
   */
  async getToken(user: UserRecord): Promise<Token> {
    const tokens = this.app.services.get('tokens');
    try {
      return (await tokens.getOrCreate(user)).token;
    } catch (err) {
      if (!(err instanceof TokenKeyUnavailable)) throw err;
      this.app.log.warn({ userId: user.pk }, 'token key stored under another SECRET_KEY: regenerated');
      return tokens.regenerate(user);
    }
  }

  /** DRF's `AuthTokenSerializer`: field errors first, then the credentials check. */
  async validateCredentials(req: ApiRequest): Promise<UserRecord> {
    const data = req.data;
    const nonField = this.app.settings.NON_FIELD_ERRORS_KEY;
    if (data === null) throw new ValidationError({ [nonField]: [this.noDataMessage] });
    if (typeof data !== 'object' || Array.isArray(data)) {
      throw new ValidationError({
        [nonField]: [`Invalid data. Expected a dictionary, but got ${pythonTypeName(data)}.`],
      });
    }
    const fields = data as Record<string, unknown>;
    const errors: Record<string, string[]> = {};
    const username = charField(fields, 'username', true, errors);
    const password = charField(fields, 'password', false, errors);
    if (Object.keys(errors).length > 0) throw new ValidationError(errors);
    if (!username || !password) throw new ValidationError({ [nonField]: [this.missingCredentialsMessage] });
    const user = await authenticateLogin(req, username, password);
    if (!user) throw new ValidationError({ [nonField]: [this.invalidCredentialsMessage] });
    return user;
  }
}

/** DRF's `CharField.run_validation` for one field; records errors under its name. */
function charField(data: Record<string, unknown>, name: string, trim: boolean, errors: Record<string, string[]>): string | null {
  if (!Object.hasOwn(data, name)) {
    errors[name] = [FIELD_MESSAGES.required];
    return null;
  }
  const raw = data[name];
  if (raw === null) {
    errors[name] = [FIELD_MESSAGES.null];
    return null;
  }
  let value: string;
  if (typeof raw === 'string') value = raw;
  else if (typeof raw === 'number') value = pythonStr(raw); // DRF: numbers become strings, `1e999` is "inf"
  else {
    errors[name] = [FIELD_MESSAGES.invalid];
    return null;
  }
  if (value === '' || (trim && pyStrip(value) === '')) {
    errors[name] = [FIELD_MESSAGES.blank];
    return null;
  }
  if (trim) value = pyStrip(value);
  const problems: string[] = [];
  if (value.includes('\0')) problems.push(FIELD_MESSAGES.nullCharacters);
  const surrogate = /[\ud800-\udfff]/.exec(value.replace(/[\ud800-\udbff][\udc00-\udfff]/g, ''));
  if (surrogate) {
    problems.push(`Surrogate characters are not allowed: U+${surrogate[0].charCodeAt(0).toString(16).toUpperCase()}.`);
  }
  if (problems.length > 0) {
    errors[name] = problems;
    return null;
  }
  return value;
}

const PY_WHITESPACE =
  /^[\t\n\x0b\x0c\r\x1c-\x1f \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+|[\t\n\x0b\x0c\r\x1c-\x1f \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+$/g;

/** Python's `str.strip()` (what `str.isspace()` calls whitespace). */
function pyStrip(s: string): string {
  return s.replace(PY_WHITESPACE, '');
}

/** `type(data).__name__` for what a JSON body can hold. */
function pythonTypeName(value: unknown): string {
  if (typeof value === 'string') return 'str';
  if (typeof value === 'boolean') return 'bool';
  if (typeof value === 'number') return Number.isInteger(value) ? 'int' : 'float';
  if (Array.isArray(value)) return 'list';
  return 'NoneType';
}

/**
 * The obtain-token view, ready to route (DRF's `obtain_auth_token`).
 *
 * @example
 * path('api-token-auth/', obtainAuthToken)
 */
export const obtainAuthToken = new ObtainAuthToken();
