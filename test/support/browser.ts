import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { type BrowserContext, chromium, type Page } from 'playwright-core';

/**
 * Debian's Chromium (`apt-get install chromium`), found as `command -v chromium` would, else at /usr/bin/chromium;
 * `CHROMIUM_PATH` names another build. Playwright's own browser download is not used.
 */
export function findChromium(): string | undefined {
  const named = process.env.CHROMIUM_PATH;
  if (named !== undefined && named !== '') return existsSync(named) ? named : undefined;
  const onPath = (process.env.PATH ?? '')
    .split(delimiter)
    .filter(Boolean)
    .map((dir) => join(dir, 'chromium'))
    .find((candidate) => existsSync(candidate));
  return onPath ?? (existsSync('/usr/bin/chromium') ? '/usr/bin/chromium' : undefined);
}

/** Flags that keep a headless Chromium to itself: no sandbox (CI runs as root), no GPU, no calls home. */
export const chromiumFlags = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export interface Browser {
  readonly context: BrowserContext;
  /** A fresh tab, its page errors collected (a test fails on any). */
  page(): Promise<Page & { errors: string[] }>;
  close(): Promise<void>;
}

/** Starts Chromium with a fresh profile in a temp directory, removed on close. */
export async function launchBrowser(executablePath: string): Promise<Browser> {
  const profile = await mkdtemp(join(tmpdir(), 'user-group-mock-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath,
    headless: true,
    args: chromiumFlags,
    viewport: { width: 1280, height: 720 },
  });
  return {
    context,
    page: async () => {
      const page = Object.assign(await context.newPage(), { errors: [] as string[] });
      page.on('pageerror', (error) => page.errors.push(error.message));
      // A headless browser may run no animation frame at all (nothing is painted): the pages must never wait for one.
      // Every page here gets a requestAnimationFrame that never calls back, so a step that needs a frame fails here
      // rather than only in such a browser (Preact's effects then run on their timer).
      await page.addInitScript('window.requestAnimationFrame = () => 0;');
      return page;
    },
    close: async () => {
      await context.close();
      await rm(profile, { recursive: true, force: true, maxRetries: 3 });
    },
  };
}

/** Whether screenshots are written this run (`npm run screenshots`); a plain test run leaves the tree as it is. */
export const takingScreenshots = process.env.UI_SCREENSHOTS === '1';
