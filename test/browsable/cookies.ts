/** A tiny cookie jar for `inject()`: keeps `Set-Cookie` values, sends them back. */
export class CookieJar {
  readonly cookies = new Map<string, string>();

  store(setCookie: string | string[] | undefined): void {
    for (const line of typeof setCookie === 'string' ? [setCookie] : (setCookie ?? [])) {
      const [pair] = line.split(';');
      const eq = pair!.indexOf('=');
      const name = pair!.slice(0, eq).trim();
      const value = pair!.slice(eq + 1).trim();
      if (value === '' || /Max-Age=0/i.test(line) || /Expires=Thu, 01 Jan 1970/i.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  header(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  get(name: string): string | undefined {
    return this.cookies.get(name);
  }
}

/** The value of a hidden or text input named `name` in an HTML page. */
export function inputValue(html: string, name: string): string {
  const m = new RegExp(`<input[^>]*name="${name}"[^>]*value="([^"]*)"`).exec(html);
  if (!m) throw new Error(`No input named ${name}`);
  return m[1]!.replace(/&amp;/g, '&').replace(/&quot;/g, '"').replace(/&#x27;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>');
}
