/**
 * Base pages of the runtime calibration set (bench/healing-runtime-capture.ts): ordinary
 * web pages written for this purpose — sign-up, checkout, settings, catalogue, article,
 * dashboard, tickets, booking, pricing, user admin, landing, search results. They are NOT
 * the fixture app (its v1 → v2 pair stays a held-out end-to-end test). Each has the things
 * that make healing hard: header and footer links with the same text, repeated cards and
 * rows, radio groups, several text fields side by side.
 */

const STYLE = `<style>
body{font:15px/1.4 sans-serif;margin:0}header,footer{display:flex;gap:12px;padding:10px 20px;background:#eee}
main{display:flex;gap:24px;padding:20px}aside{width:200px}section{flex:1}form div,.row{margin:8px 0}
.card{display:inline-block;width:180px;margin:8px;padding:8px;border:1px solid #ccc;vertical-align:top}
table{border-collapse:collapse}td,th{padding:4px 8px;border:1px solid #ddd}input,select,textarea{display:block}
label{display:block}input[type=checkbox],input[type=radio]{display:inline-block}
</style>`;

const nav = (links: string[]) => links.map((l) => `<a href="/${l.toLowerCase().replace(/\W+/g, '-')}" class="nav-link">${l}</a>`).join('');

function shell(title: string, body: string, extraNav: string[] = []): string {
  const top = ['Home', 'Products', 'Pricing', 'Blog', 'Help', ...extraNav];
  return `<!doctype html><html><head><title>${title}</title>${STYLE}</head><body>
<header class="site-header"><a href="/" id="brand" class="brand">Acme</a><nav class="main-nav" aria-label="Primary">${nav(top)}</nav>
<a href="/account" id="account-link" class="account">My account</a></header>
${body}
<footer class="site-footer"><nav aria-label="Footer">${nav(['Home', 'About', 'Careers', 'Blog', 'Help', 'Privacy', 'Terms'])}</nav>
<a href="https://twitter.com/acme" class="social" aria-label="Twitter">Tw</a><a href="https://facebook.com/acme" class="social" aria-label="Facebook">Fb</a>
<p class="copyright">© 2026 Acme Inc.</p></footer></body></html>`;
}

const field = (id: string, label: string, attrs = '', tag = 'input') =>
  tag === 'textarea'
    ? `<div class="form-row"><label for="${id}">${label}</label><textarea id="${id}" name="${id.replace(/-/g, '_')}" class="form-input" ${attrs}></textarea></div>`
    : `<div class="form-row"><label for="${id}">${label}</label><input id="${id}" name="${id.replace(/-/g, '_')}" class="form-input" ${attrs}></div>`;
const select = (id: string, label: string, options: string[]) =>
  `<div class="form-row"><label for="${id}">${label}</label><select id="${id}" name="${id}" class="form-select">${options.map((o, i) => `<option value="${i ? o.toLowerCase().replace(/\W+/g, '-') : ''}">${o}</option>`).join('')}</select></div>`;
const check = (id: string, label: string, name = id) => `<div class="form-check"><input type="checkbox" id="${id}" name="${name}" value="1"><label for="${id}">${label}</label></div>`;
const radios = (name: string, legend: string, options: string[]) =>
  `<fieldset id="${name}-group" class="radio-group"><legend>${legend}</legend>${options
    .map((o) => { const v = o.toLowerCase().replace(/\W+/g, '-'); return `<input type="radio" id="${name}-${v}" name="${name}" value="${v}"><label for="${name}-${v}">${o}</label>`; })
    .join('')}</fieldset>`;
const button = (id: string, text: string, attrs = '') => `<button id="${id}" class="btn" ${attrs}>${text}</button>`;

export interface BasePage {
  id: string;
  html: string;
}

export const BASE_PAGES: BasePage[] = [
  {
    id: 'signup',
    html: shell('Create your account', `<main><section><h1>Create your account</h1><form id="signup-form" class="signup">
${field('first-name', 'First name', 'placeholder="Jane" autocomplete="given-name"')}${field('last-name', 'Last name', 'placeholder="Doe" autocomplete="family-name"')}
${field('signup-email', 'Email', 'type="email" placeholder="name@company.com" data-testid="signup-email"')}${field('new-password', 'Password', 'type="password" data-testid="signup-password"')}
${field('confirm-password', 'Confirm password', 'type="password"')}${select('country', 'Country', ['Select…', 'France', 'Germany', 'Spain', 'United States'])}
${check('terms', 'I accept the terms of service')}${check('marketing', 'Send me product updates')}
${button('create-account', 'Create account', 'type="submit" data-testid="signup-submit"')}</form>
<p>Already have an account? <a href="/signin" id="signin-link">Sign in</a></p></section></main>`),
  },
  {
    id: 'checkout',
    html: shell('Checkout', `<main><section><h1>Checkout</h1><form id="checkout-form"><h2>Shipping address</h2>
${field('full-name', 'Full name')}${field('street', 'Street address', 'autocomplete="street-address"')}${field('city', 'City')}${field('zip', 'Postal code', 'inputmode="numeric"')}
${select('state', 'State', ['Choose…', 'California', 'Nevada', 'Oregon'])}${radios('shipping', 'Shipping method', ['Standard', 'Express', 'Overnight'])}
<h2>Payment</h2>${field('card-number', 'Card number', 'data-testid="card-number" inputmode="numeric"')}${field('expiry', 'Expiry date', 'placeholder="MM/YY"')}${field('cvc', 'Security code', 'placeholder="CVC"')}
<div class="row">${field('coupon', 'Coupon code')}${button('apply-coupon', 'Apply', 'type="button"')}</div>
${button('place-order', 'Place order', 'type="submit" data-testid="place-order"')}</form></section>
<aside><h2>Order summary</h2><ul id="cart-items"><li>Blue mug <span class="price">$12.00</span></li><li>Notebook <span class="price">$8.50</span></li></ul>
<p id="total">Total: <strong>$20.50</strong></p><a href="/cart" id="edit-cart">Edit cart</a></aside></main>`),
  },
  {
    id: 'settings',
    html: shell('Settings', `<main><aside><nav aria-label="Settings"><a href="#profile" class="side-link">Profile</a><a href="#notifications" class="side-link">Notifications</a><a href="#security" class="side-link">Security</a></nav></aside>
<section><h1>Settings</h1><form id="profile-form"><h2 id="profile">Profile</h2>${field('display-name', 'Display name')}${field('bio', 'Bio', 'placeholder="Tell us about yourself"', 'textarea')}
${field('avatar', 'Profile picture', 'type="file"')}${field('website', 'Website', 'type="url" placeholder="https://"')}
<h2 id="notifications">Notifications</h2>${check('notify-email', 'Email notifications')}${check('notify-sms', 'SMS notifications')}${check('notify-push', 'Push notifications')}
${select('language', 'Language', ['English', 'Français', 'Deutsch'])}${select('timezone', 'Time zone', ['UTC', 'Europe/Paris', 'America/New_York'])}
${button('save-settings', 'Save changes', 'type="submit" data-testid="save-settings"')}${button('cancel-settings', 'Cancel', 'type="reset"')}</form>
<h2 id="security">Danger zone</h2><p>Deleting your account cannot be undone.</p>${button('delete-account', 'Delete account', 'class="btn btn-danger" data-testid="delete-account"')}</section></main>`),
  },
  {
    id: 'catalogue',
    html: shell('Shop', `<main><aside><h2>Filters</h2>${check('cat-kitchen', 'Kitchen', 'category')}${check('cat-office', 'Office', 'category')}${check('cat-garden', 'Garden', 'category')}
${select('sort', 'Sort by', ['Relevance', 'Price: low to high', 'Price: high to low', 'Newest'])}</aside><section>
<form id="search" role="search"><input type="search" id="q" name="q" placeholder="Search products" aria-label="Search products">${button('search-button', 'Search', 'type="submit"')}</form>
${['Blue mug', 'Red kettle', 'Desk lamp', 'Notebook', 'Garden hose', 'Plant pot', 'Office chair', 'Coffee grinder']
  .map((p, i) => `<div class="card product" data-sku="SKU-${100 + i}"><h3><a href="/p/${100 + i}" class="product-title">${p}</a></h3><p class="price">$${(9 + i * 7).toFixed(2)}</p><button class="btn add-to-cart" data-testid="add-${100 + i}">Add to cart</button></div>`)
  .join('')}
<nav class="pagination" aria-label="Pages"><a href="?page=1" class="page">1</a><a href="?page=2" class="page">2</a><a href="?page=3" class="page">3</a><a href="?page=2" id="next-page" rel="next">Next</a></nav></section></main>`),
  },
  {
    id: 'article',
    html: shell('How we ship', `<main><section><article><h1>How we ship software every day</h1><p class="byline">By <a href="/authors/kim" id="author">Kim Lee</a> · 6 min read</p>
<div class="share"><a href="https://twitter.com/share" class="share-link" title="Share on Twitter">Twitter</a><a href="https://facebook.com/share" class="share-link" title="Share on Facebook">Facebook</a><a href="https://linkedin.com/share" class="share-link" title="Share on LinkedIn">LinkedIn</a></div>
<p>We deploy dozens of times a day. Here is what it takes.</p><p>Small changes, fast reviews, automated tests.</p>
<ul class="tags"><li><a href="/tag/devops" class="tag">devops</a></li><li><a href="/tag/testing" class="tag">testing</a></li><li><a href="/tag/culture" class="tag">culture</a></li></ul></article>
<h2>Comments</h2><ol id="comments">${['Great read!', 'How do you handle rollbacks?', 'Thanks for sharing.'].map((c, i) => `<li class="comment"><p>${c}</p><a href="#reply-${i}" class="reply">Reply</a></li>`).join('')}</ol>
<form id="comment-form"><h3>Leave a comment</h3>${field('comment-name', 'Name')}${field('comment-email', 'Email', 'type="email"')}${field('comment-body', 'Comment', '', 'textarea')}
${button('post-comment', 'Post comment', 'type="submit"')}</form></section></main>`),
  },
  {
    id: 'dashboard',
    html: shell('Dashboard', `<main><aside><nav aria-label="App">${['Overview', 'Projects', 'Reports', 'Team', 'Billing', 'Integrations'].map((l) => `<a href="/app/${l.toLowerCase()}" class="side-link">${l}</a>`).join('')}</nav></aside>
<section><div class="toolbar"><input type="search" id="app-search" placeholder="Search projects"><button id="notifications-button" aria-label="Notifications" class="icon-btn">🔔</button><button id="user-menu" class="avatar" aria-haspopup="menu">KL</button></div>
<h1>Overview</h1><div class="stats"><div class="card stat"><h3>Active projects</h3><p>12</p></div><div class="card stat"><h3>Open issues</h3><p>48</p></div><div class="card stat"><h3>Deploys today</h3><p>7</p></div></div>
<table id="projects"><caption>Projects</caption><thead><tr><th>Name</th><th>Owner</th><th>Status</th><th>Actions</th></tr></thead><tbody>
${['Website', 'Mobile app', 'API', 'Data pipeline'].map((p, i) => `<tr><td><a href="/projects/${i}" class="project-link">${p}</a></td><td>user${i}</td><td><span class="badge">active</span></td><td><button class="btn edit">Edit</button><button class="btn delete">Delete</button></td></tr>`).join('')}
</tbody></table>${button('new-project', 'New project', 'data-testid="new-project"')}</section></main>`),
  },
  {
    id: 'ticket',
    html: shell('New ticket', `<main><section><h1>Open a support ticket</h1><form id="ticket-form">${field('ticket-subject', 'Subject', 'placeholder="Short summary"')}
${select('category', 'Category', ['Pick one', 'Billing', 'Technical', 'Account'])}${radios('priority', 'Priority', ['Low', 'Normal', 'Urgent'])}
${field('description', 'Description', 'placeholder="What happened?"', 'textarea')}${field('attachments', 'Attachments', 'type="file" multiple')}${field('cc', 'CC', 'type="email" placeholder="colleague@company.com"')}
<div class="actions">${button('submit-ticket', 'Submit ticket', 'type="submit" data-testid="submit-ticket"')}<a href="/tickets" id="cancel-ticket" class="btn-link">Cancel</a></div></form></section>
<aside><h2>Before you ask</h2><ul><li><a href="/help/reset-password">Reset your password</a></li><li><a href="/help/invoices">Find an invoice</a></li><li><a href="/status">System status</a></li></ul></aside></main>`),
  },
  {
    id: 'booking',
    html: shell('Book a room', `<main><section><h1>Book your stay</h1><form id="booking-form"><div class="dates">${field('check-in', 'Check-in', 'type="date"')}${field('check-out', 'Check-out', 'type="date"')}</div>
${field('guests', 'Guests', 'type="number" min="1" value="2"')}${radios('room', 'Room type', ['Single', 'Double', 'Suite'])}
${field('requests', 'Special requests', 'placeholder="Late arrival, cot…"', 'textarea')}${field('promo', 'Promo code')}${check('breakfast', 'Add breakfast')}
${button('book-now', 'Book now', 'type="submit" data-testid="book-now"')}</form></section><aside><h2>Your hotel</h2><p>Seaside Inn, Brighton</p><a href="/hotels/seaside" id="hotel-details">View details</a></aside></main>`),
  },
  {
    id: 'pricing',
    html: shell('Pricing', `<main><section><h1>Simple pricing</h1><div class="toggle" role="group" aria-label="Billing period"><button id="monthly" aria-pressed="true">Monthly</button><button id="yearly" aria-pressed="false">Yearly</button></div>
${[['Starter', '0', ['1 project', 'Community support']], ['Team', '29', ['10 projects', 'Email support', 'SSO']], ['Enterprise', '99', ['Unlimited projects', 'Phone support', 'SSO', 'Audit log']]]
  .map(([n, p, f]) => `<div class="card plan" id="plan-${String(n).toLowerCase()}"><h2>${n}</h2><p class="price">$${p}/mo</p><ul>${(f as string[]).map((x) => `<li>${x}</li>`).join('')}</ul><a href="/signup?plan=${String(n).toLowerCase()}" class="btn choose">Choose ${n}</a></div>`)
  .join('')}
<h2>Questions</h2><details><summary>Can I cancel anytime?</summary><p>Yes.</p></details><details><summary>Do you offer discounts?</summary><p>For non-profits.</p></details>
<a href="/contact-sales" id="contact-sales" class="btn">Talk to sales</a></section></main>`),
  },
  {
    id: 'users',
    html: shell('Users', `<main><section><h1>Users</h1><div class="filters"><input id="user-filter" type="search" placeholder="Filter by name" aria-label="Filter users">${select('role-filter', 'Role', ['All roles', 'Admin', 'Editor', 'Viewer'])}</div>
<div class="bulk">${select('bulk-action', 'Bulk action', ['Choose action', 'Deactivate', 'Export'])}${button('apply-bulk', 'Apply')}</div>
<table id="users-table"><thead><tr><th><input type="checkbox" id="select-all" aria-label="Select all"></th><th>Name</th><th>Email</th><th>Role</th><th></th></tr></thead><tbody>
${['Ana Silva', 'Ben Ode', 'Chen Wu', 'Dana Fox', 'Eli Ross'].map((u, i) => `<tr class="user-row"><td><input type="checkbox" class="row-select" aria-label="Select ${u}"></td><td><a href="/users/${i}" class="user-name">${u}</a></td><td>${u.split(' ')[0].toLowerCase()}@acme.io</td><td>${['Admin', 'Editor', 'Viewer'][i % 3]}</td><td><button class="btn btn-sm edit-user">Edit</button></td></tr>`).join('')}
</tbody></table><div class="pager"><button id="prev-page" disabled>Previous</button><span id="page-label">Page 1 of 4</span><button id="next-button">Next</button></div>${button('invite-user', 'Invite user', 'data-testid="invite-user"')}</section></main>`),
  },
  {
    id: 'landing',
    html: shell('Acme — build faster', `<main><section><div class="hero"><h1>Build faster with Acme</h1><p>Ship reliable software with less effort.</p>
<a href="/signup" id="cta-primary" class="btn btn-primary">Start free trial</a><a href="/demo" id="cta-secondary" class="btn btn-secondary">Watch demo</a></div>
${['Automated testing', 'Instant rollbacks', 'Team insights'].map((f, i) => `<div class="card feature"><h3>${f}</h3><p>Feature ${i + 1} explained in one sentence.</p><a href="/features/${i}" class="more">Learn more</a></div>`).join('')}
<form id="newsletter-form" class="subscribe"><label for="subscribe-email">Get our newsletter</label><input id="subscribe-email" type="email" name="email" placeholder="Your email">${button('subscribe', 'Subscribe', 'type="submit"')}</form>
<blockquote class="testimonial">"Acme cut our release time in half." <cite>— Dev lead</cite></blockquote></section></main>`),
  },
  {
    id: 'search',
    html: shell('Results', `<main><section><form id="search-form" role="search"><input id="query" name="query" value="climbing shoes" aria-label="Search"><button id="go" type="submit">Go</button></form>
<div class="tabs" role="tablist"><button role="tab" id="tab-all" aria-selected="true">All</button><button role="tab" id="tab-images">Images</button><button role="tab" id="tab-news">News</button></div>
<ol id="results">${['Best climbing shoes 2026', 'Climbing shoes buying guide', 'How to resole climbing shoes', 'Climbing shoe sizing chart', 'Top 10 beginner shoes']
  .map((r, i) => `<li class="result"><a href="https://example${i}.org/shoes" class="result-title">${r}</a><cite class="result-url">example${i}.org</cite><p class="snippet">Snippet about ${r.toLowerCase()}.</p></li>`).join('')}</ol>
<nav class="pagination"><a href="?p=2" id="more-results">More results</a></nav></section><aside><h2>Related searches</h2><a href="/s?q=approach+shoes" class="related">approach shoes</a><a href="/s?q=bouldering+shoes" class="related">bouldering shoes</a></aside></main>`),
  },
];
