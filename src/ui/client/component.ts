/**
 * `<user-group-dashboard dashboard="…" token="…" [environment="Customer"] [tenant="default"]>`: what an embedded
 * dashboard shows for a token, for wiring a front end during development. Load it from the mock:
 * `<script type="module" src="http://127.0.0.1:4010/embed/component.js"></script>`. It renders the mock's preview
 * page (`/embed/{dashboard_id}?token=…`) in an iframe, follows changes of its attributes (a new token after a
 * rotation), sizes the iframe to the card, and fires `dashboard-state` with `{ outcome }` (`viewing`, `rotated`,
 * `unknown`, `other-tenant`, `other-environment`, …) once each time the card changes (a new page in the frame; not
 * when the card is only resized).
 */
const base = new URL('./', import.meta.url);

/** What the preview page posts (embed.ts): which card it shows, and how tall it is. */
type EmbedMessage = { readonly type?: unknown; readonly outcome: string; readonly height: number } | null;

class UserGroupDashboard extends HTMLElement {
  static readonly observedAttributes = ['dashboard', 'token', 'environment', 'tenant'];

  readonly #frame: HTMLIFrameElement;
  /** The outcome the page now in the frame said (it posts again each time its size changes): announced once. */
  #outcome: string | undefined;

  constructor() {
    super();
    const root = this.attachShadow({ mode: 'open' });
    const style = document.createElement('style');
    style.textContent =
      ':host{display:block}iframe{display:block;width:100%;height:220px;border:0;border-radius:8px;background:transparent}';
    this.#frame = document.createElement('iframe');
    this.#frame.setAttribute('part', 'frame');
    this.#frame.setAttribute('referrerpolicy', 'no-referrer');
    root.append(style, this.#frame);
  }

  /** The outcome of the card shown now (`viewing`, `rotated`, …), once the preview has loaded its page. */
  get outcome(): string | undefined {
    return this.#outcome;
  }

  get token(): string {
    return this.getAttribute('token') ?? '';
  }

  set token(value: string) {
    this.setAttribute('token', value);
  }

  connectedCallback(): void {
    window.addEventListener('message', this.#onMessage);
    this.#update();
  }

  disconnectedCallback(): void {
    window.removeEventListener('message', this.#onMessage);
  }

  attributeChangedCallback(): void {
    if (this.isConnected) this.#update();
  }

  #update(): void {
    const dashboard = this.getAttribute('dashboard') || 'dashboard';
    const url = new URL(encodeURIComponent(dashboard), base);
    url.searchParams.set('token', this.token);
    for (const name of ['environment', 'tenant'] as const) {
      const value = this.getAttribute(name);
      if (value) url.searchParams.set(name, value);
    }
    this.#frame.title = `Dashboard ${dashboard} (preview by user-group-mock)`;
    if (this.#frame.src === url.href) return;
    this.#outcome = undefined;
    this.#frame.src = url.href;
  }

  readonly #onMessage = (event: MessageEvent<EmbedMessage>): void => {
    if (event.source !== this.#frame.contentWindow || event.origin !== base.origin) return;
    if (event.data?.type !== 'user-group-mock:embed') return;
    this.#frame.style.height = `${Math.ceil(event.data.height)}px`;
    if (this.#outcome === event.data.outcome) return; // the same card, resized
    this.#outcome = event.data.outcome;
    this.dispatchEvent(
      new CustomEvent('dashboard-state', { detail: { outcome: event.data.outcome }, bubbles: true }),
    );
  };
}

if (customElements.get('user-group-dashboard') === undefined)
  customElements.define('user-group-dashboard', UserGroupDashboard);
