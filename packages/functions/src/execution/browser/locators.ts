import type { Locator as PwLocator, Page } from 'playwright-core';
import type { Locator } from '@svc/core/contracts/steps';

type AriaRole = Parameters<Page['getByRole']>[0];

/** Turns the product's Locator into a Playwright locator on the page (strictness is checked by the caller). */
export function resolveLocator(page: Page, locator: Locator): PwLocator {
  if (typeof locator === 'string') return page.locator(locator);
  if ('role' in locator) return page.getByRole(locator.role as AriaRole, { ...(locator.name !== undefined && { name: locator.name }), ...(locator.exact !== undefined && { exact: locator.exact }) });
  if ('test_id' in locator) return page.getByTestId(locator.test_id);
  if ('label' in locator) return page.getByLabel(locator.label, { exact: locator.exact });
  if ('placeholder' in locator) return page.getByPlaceholder(locator.placeholder, { exact: locator.exact });
  if ('text' in locator) return page.getByText(locator.text, { exact: locator.exact });
  if ('css' in locator) return page.locator(`css=${locator.css}`);
  return page.locator(`xpath=${locator.xpath}`);
}

const q = (s: string) => JSON.stringify(s);

/** A short, stable rendering of a locator for messages: "#buy", role=button[name="Save"], data-testid="x". */
export function describeLocator(locator: Locator): string {
  if (typeof locator === 'string') return q(locator);
  if ('role' in locator) return `role=${locator.role}${locator.name !== undefined ? `[name=${q(locator.name)}${locator.exact ? ' exact' : ''}]` : ''}`;
  if ('test_id' in locator) return `data-testid=${q(locator.test_id)}`;
  const exact = 'exact' in locator && locator.exact ? ' (exact)' : '';
  if ('label' in locator) return `label=${q(locator.label)}${exact}`;
  if ('placeholder' in locator) return `placeholder=${q(locator.placeholder)}${exact}`;
  if ('text' in locator) return `text=${q(locator.text)}${exact}`;
  if ('css' in locator) return `css=${q(locator.css)}`;
  return `xpath=${q(locator.xpath)}`;
}
