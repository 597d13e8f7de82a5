export { adminRoutes, type AdminRoutesOptions } from './routes.js';
export { AdminView, redirect, type AdminRouteName } from './admin-view.js';
export { AdminPage, AdminRenderer, type AdminMessage } from './admin-page.js';
export { AdminIndexView } from './index-view.js';
export { AdminLoginView, AdminLogoutView } from './login-view.js';
export { AdminUsersView, AdminUserView } from './users-view.js';
export { AdminTokensView, AdminTokenView } from './tokens-view.js';
