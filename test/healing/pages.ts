import type { Fingerprint } from '@svc/core/contracts/fingerprint';

/** Hand-made fingerprints of a small sign-in page, as the runner records them. */
export function signInPage(opts: { buttonId?: string; withButton?: boolean; shift?: number } = {}): Fingerprint[] {
  const dy = opts.shift ?? 0;
  const el = (fp: Fingerprint): Fingerprint => ({ visible: true, ...fp, box: fp.box ? { ...fp.box, y: fp.box.y + dy } : undefined });
  const page: Fingerprint[] = [
    el({ tag: 'a', text: 'Home', role: 'link', accessibleName: 'Home', href: '/', xpath: '/html/body/header/nav/a[1]', box: { x: 20, y: 10, width: 60, height: 20 }, neighborText: ['Pricing'] }),
    el({ tag: 'a', text: 'Pricing', role: 'link', accessibleName: 'Pricing', href: '/pricing', xpath: '/html/body/header/nav/a[2]', box: { x: 100, y: 10, width: 60, height: 20 }, neighborText: ['Home', 'Docs'] }),
    el({ tag: 'a', text: 'Docs', role: 'link', accessibleName: 'Docs', href: '/docs', xpath: '/html/body/header/nav/a[3]', box: { x: 180, y: 10, width: 60, height: 20 }, neighborText: ['Pricing'] }),
    el({ tag: 'h1', text: 'Sign in to Acme', role: 'heading', accessibleName: 'Sign in to Acme', xpath: '/html/body/main/h1', box: { x: 400, y: 100, width: 300, height: 40 } }),
    el({ tag: 'label', text: 'Email', xpath: '/html/body/main/form/label[1]', box: { x: 400, y: 160, width: 300, height: 20 }, neighborText: ['Sign in to Acme'] }),
    el({ tag: 'input', id: 'email', name: 'email', type: 'email', role: 'textbox', accessibleName: 'Email', placeholder: 'you@example.com', xpath: '/html/body/main/form/input[1]', idXpath: '//*[@id="email"]', box: { x: 400, y: 185, width: 300, height: 32 }, neighborText: ['Email', 'Password', 'Sign in to Acme'], isButton: false }),
    el({ tag: 'label', text: 'Password', xpath: '/html/body/main/form/label[2]', box: { x: 400, y: 230, width: 300, height: 20 }, neighborText: ['Sign in to Acme'] }),
    el({ tag: 'input', id: 'password', name: 'password', type: 'password', role: 'textbox', accessibleName: 'Password', xpath: '/html/body/main/form/input[2]', idXpath: '//*[@id="password"]', box: { x: 400, y: 255, width: 300, height: 32 }, neighborText: ['Password', 'Sign in to Acme'], isButton: false }),
    el({ tag: 'a', text: 'Forgot password?', role: 'link', accessibleName: 'Forgot password?', href: '/reset', xpath: '/html/body/main/form/a[1]', box: { x: 400, y: 295, width: 120, height: 18 }, neighborText: ['Sign in to Acme'] }),
  ];
  if (opts.withButton !== false) {
    page.push(
      el({
        tag: 'button', id: opts.buttonId ?? 'login-btn', type: 'submit', classes: ['btn', 'btn-primary'], text: 'Sign in', role: 'button', accessibleName: 'Sign in',
        xpath: '/html/body/main/form/button[1]', idXpath: `//*[@id="${opts.buttonId ?? 'login-btn'}"]`, box: { x: 400, y: 330, width: 300, height: 40 },
        neighborText: ['Forgot password?', 'Create an account', 'Sign in to Acme'], isButton: true,
      }),
    );
  }
  page.push(
    el({ tag: 'button', type: 'button', classes: ['btn', 'btn-secondary'], text: 'Sign in with Google', role: 'button', accessibleName: 'Sign in with Google', xpath: '/html/body/main/div/button[1]', box: { x: 400, y: 390, width: 300, height: 40 }, neighborText: ['or'], isButton: true }),
    el({ tag: 'a', text: 'Create an account', role: 'link', accessibleName: 'Create an account', href: '/signup', xpath: '/html/body/main/p/a[1]', box: { x: 400, y: 450, width: 150, height: 18 }, neighborText: ['New here?'] }),
    el({ tag: 'a', text: 'Privacy', role: 'link', accessibleName: 'Privacy', href: '/privacy', xpath: '/html/body/footer/a[1]', box: { x: 20, y: 900, width: 60, height: 18 }, neighborText: ['Terms'] }),
    el({ tag: 'a', text: 'Terms', role: 'link', accessibleName: 'Terms', href: '/terms', xpath: '/html/body/footer/a[2]', box: { x: 100, y: 900, width: 60, height: 18 }, neighborText: ['Privacy'] }),
  );
  return page;
}
