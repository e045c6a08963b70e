/** Language of a file by its name, for the codebase summary. */
const byExtension: Record<string, string> = {
  ts: 'TypeScript', tsx: 'TypeScript', mts: 'TypeScript', cts: 'TypeScript',
  js: 'JavaScript', jsx: 'JavaScript', mjs: 'JavaScript', cjs: 'JavaScript',
  html: 'HTML', htm: 'HTML', vue: 'Vue', svelte: 'Svelte', hbs: 'Handlebars', handlebars: 'Handlebars', ejs: 'EJS', njk: 'Nunjucks', pug: 'Pug',
  css: 'CSS', scss: 'SCSS', less: 'Less',
  json: 'JSON', yaml: 'YAML', yml: 'YAML', toml: 'TOML', xml: 'XML',
  md: 'Markdown', mdx: 'Markdown',
  py: 'Python', rb: 'Ruby', go: 'Go', rs: 'Rust', java: 'Java', kt: 'Kotlin', cs: 'C#', php: 'PHP', swift: 'Swift',
  c: 'C', h: 'C', cpp: 'C++', hpp: 'C++', sh: 'Shell', sql: 'SQL',
};

export function languageOf(path: string): string {
  const name = path.split('/').at(-1) ?? path;
  if (/^dockerfile$/i.test(name)) return 'Dockerfile';
  const ext = name.includes('.') ? name.split('.').at(-1)!.toLowerCase() : '';
  return byExtension[ext] ?? 'Other';
}

/** Files the TypeScript compiler can parse. */
export const isScript = (path: string) => /\.(ts|tsx|mts|cts|js|jsx|mjs|cjs)$/i.test(path) && !/\.d\.ts$/i.test(path);
/** Markup scanned by the regex reader. */
export const isMarkup = (path: string) => /\.(html?|vue|svelte|hbs|handlebars|ejs|njk|mustache|erb|jinja2?|twig|liquid|php)$/i.test(path);

/** Test code: counted in the summary, but routes and elements declared there are not the app's. */
export const isTestFile = (path: string) => /(^|\/)(__tests__|__mocks__|cypress|e2e)\/|\.(test|spec|e2e|cy)\.[cm]?[jt]sx?$/i.test(path);
