// The test suite of the execution benchmark: two UI tests against the fixture app,
// alternated N times. bench/execution-bare.mjs does the same steps with playwright-core.

const login = {
  name: 'login',
  type: 'ui',
  steps: [
    { type: 'goto', url: '/login' },
    { type: 'fill', selector: { label: 'Email' }, value: 'demo@example.com' },
    { type: 'fill', selector: '#password', value: 's3cret!' },
    { type: 'click', selector: { role: 'button', name: 'Sign in' } },
    { type: 'wait-for', url: '**/dashboard' },
  ],
  assertions: [{ type: 'text', selector: '#welcome', equals: 'Welcome, Demo User!' }],
};

const table = {
  name: 'table',
  type: 'ui',
  steps: [
    { type: 'goto', url: '/table' },
    { type: 'fill', selector: { placeholder: 'Filter products' }, value: 'a' },
    { type: 'click', selector: { test_id: 'sort-price' } },
  ],
  assertions: [
    { type: 'attribute', selector: '#price-header', attribute: 'aria-sort', equals: 'ascending' },
    { type: 'count', selector: 'tr[data-testid=product-row]', min: 1 },
  ],
};

/** N tests in the product's test format: login, table, login, ... (same order as the bare script). */
export function benchSuite(n: number) {
  return Array.from({ length: n }, (_, i) => ({ ...(i % 2 ? table : login), name: `${i % 2 ? 'table' : 'login'} #${i + 1}` }));
}
