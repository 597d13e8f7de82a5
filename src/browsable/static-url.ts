import type { Settings } from '../settings.js';

/** The URL of one of Trestle's static files: `/static/trestle/trestle.css`. */
export function staticUrl(settings: Readonly<Pick<Settings, 'STATIC_URL'>>, name: string): string {
  const base = settings.STATIC_URL.endsWith('/') ? settings.STATIC_URL : `${settings.STATIC_URL}/`;
  return `${base}trestle/${name}`;
}
