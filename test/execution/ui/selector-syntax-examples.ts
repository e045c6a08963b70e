/**
 * Selector strings shared by the syntax check's unit test and its proof in real Chromium
 * (selector-syntax.test.ts here): every VALID one Playwright accepts
 * (page.locator(x).count() does not throw) and the check must pass; every INVALID one
 * Playwright refuses and the check must refuse too. A selector the check wrongly refused
 * belongs in VALID, so it stays proven.
 */

export const VALID_SELECTORS: readonly string[] = [
  // CSS
  '#buy', '.btn', 'button', '*', 'div > span', 'div span', 'div + p', 'div ~ p', '> div', 'ul li:first-child',
  'input[type=text]', 'input[type="text"]', "input[type='text']", '[data-id="a]b"]', "[title='it\\'s']", '[class~=x]', '[lang|=en]',
  '[href^="https"]', '[href$=".pdf"]', '[href*=shop]', '[data-x="A" i]', '[a = b i]', '[*|href]', '[disabled]',
  'input:not([type=checkbox], [type=radio])', ':is(h1, h2) + p', ':where(.a, .b)', 'li:nth-child(2n+1)', 'li:nth-child(odd)',
  'li:nth-of-type(3)', 'li:nth-last-child(-n + 2)', 'li:nth-child(2 of .item)', 'a:hover', 'input:-webkit-autofill', 'p:lang(en)',
  'div:has(> img)', 'form:has(input:invalid)', 'a\\[', 'div\\', '#a\\:b', '.\\31 23', '#é', 'button, a', 'input[type=text], textarea',
  'button:focus-visible', 'label:has-text("Email")', 'button:has-text("Sign in")', 'button:text("Go")', 'button:text-is("Go")',
  'div:text-matches("g\\\\w", "i")', ':nth-match(button, 1)', ':nth-match(:is(a, button), 2)', 'button:visible', 'css:light=button',
  'css=div >> span', 'css=div[data-x="a >> b"]', ':scope > div', 'div:light(span)', ':focus',
  // XPath
  '//button', '//*', '..', '(//button)[1]', '//div[@id="a"]', "//div[@id='a']", '//a[contains(., "Go")]', '//a[text()="x"]',
  '//div/..', '//div[@a="]"]', '//ul/li[last()]', '//div | //span', 'xpath=//button', 'xpath=/html/body', 'xpath=/', 'xpath=.//button',
  'xpath=child::div', "//a[@href!='x' and @id]", '//*[local-name()="svg"]',
  // text and the attribute engines
  'text=Go', 'text="Go"', "text='Go'", 'text=/G\\w/i', '"Go"', "'Go'", 'text="Go', "text=it's >> button",
  'id=a', 'data-testid=buy', 'data-test-id=buy', 'data-test=buy', 'data-testid=x"', 'nth=0', 'nth=-1', 'visible=true',
  'role=button', 'role=button[name="Go"]', 'role=button[name=Go]', 'role=button[name="Go" i]', 'role=button[name=/^g/i]',
  'role=checkbox[checked]', 'role=checkbox[checked=false]', 'role=heading[level=2]', 'role=button[include-hidden]',
  'role=button[pressed="mixed"]', 'role=textbox[description="Your email"]', 'aria-ref=e1',
  // internal engines, as the grammar and Playwright's own locators serialise them
  'internal:text="Go"i', 'internal:text="Go"s', 'internal:text=/G/', 'internal:has-text="Go"i', 'internal:label="Email"i',
  'internal:attr=[placeholder="Search"i]', 'internal:attr=[alt="x"s]', 'internal:testid=[data-testid="buy"s]',
  'internal:role=button[name="Go"i]', 'internal:role=button[name=/^\\s*Go(?!\\w)/i]', 'internal:role=link[name=/a\\/b/i]',
  'div >> internal:has="button"', 'div >> internal:has-not="span"', 'div >> internal:has-text="Go"i', 'div >> internal:has-not-text=/x/',
  'button >> internal:or="a"', 'button >> internal:and="[type=submit]"', 'div >> internal:chain="button"', 'div >> internal:has="button >> nth=0"',
  'iframe >> internal:control=enter-frame >> button', 'internal:control=any-frame >> h1', 'div >> internal:describe="the box"',
  // chains and capture
  '#a >> text=Go', 'div >> button', 'div >> nth=0', 'text=Go >> ..', '*css=div >> button', 'div>>button',
  'li >> visible=true >> text=Go',
];

export const INVALID_SELECTORS: readonly string[] = [
  // CSS
  'div[[', 'div[', 'div]', 'div[a="b', '[a="b"', "div[a='b]", 'div(', 'div)', ':not(div', 'div:has-text("x"', 'div:has-text()',
  'div:is()', 'div >', 'div > > span', 'div,,span', 'div,', ',div', '#', '.', '.1a', 'div:', 'div::before', 'div[]', 'div[=x]',
  '["a"]', '#1abc', 'a[href=x y]', '[a~b]', 'div ~', 'div +', 'div{', 'div;', 'div|span', "'Go", '"Go', 'div:nth-child(', '/',
  'css=div[[',
  // XPath
  '//div[', '//div[]', '//div/', '(//div', '//div)', '//div[@id="x]', 'xpath=//div[', 'xpath=//a[(]', '//a |',
  // engines and chains
  'foo=bar', 'tetx=Go', 'div=x', 'div >> ', '>> div', 'div >> >> span', 'text=/foo(/', 'role=button[name="Go',
  'role=button[nmae="Go"]', 'role=button[name="Go"', 'internal:attr=[placeholder="x"', 'internal:role=button[name=/(/i]',
  'internal:has="div', 'internal:has="div"', 'div >> internal:has="div[["', 'internal:control=enter-frame', '*div >> span', '*css=div >> *css=span',
  'text=/a/b', 'ROLE=button',
];
