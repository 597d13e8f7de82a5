// trestle/test: DRF's rest_framework.test for Trestle apps (docs/testing.md).
export { APIClient, type APIClientOptions, type TestableApp, type TestResponse } from './api-client.js';
export { APIRequestFactory, callView, forceAuthenticate, type APIRequestFactoryOptions, type CallViewOptions } from './request-factory.js';
export type { FieldValue, RequestFormat, TestMethod, TestRequest, TestRequestOptions } from './requests.js';
export { testDatabase, type TestDatabase, type TestDatabaseOptions } from './database.js';
export { testApp, type TestApp, type TestAppOptions } from './test-app.js';
