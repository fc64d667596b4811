import { readFileSync } from 'node:fs';
import type { Frame, Page } from 'playwright-core';

/** One rule axe-core found broken, and where. */
export interface AxeFinding {
  readonly id: string;
  readonly impact: string;
  readonly help: string;
  /** CSS selectors of the elements that break it, with axe's summary of why (first few). */
  readonly nodes: readonly string[];
}

/** The smallest shape of what axe.run gives (the test compiles without axe's or the DOM's types). */
interface AxeResults {
  violations: Array<{
    id: string;
    impact: string | null;
    help: string;
    nodes: Array<{ target: unknown[]; failureSummary?: string }>;
  }>;
}

let axeSource: string | undefined;

/** axe-core's browser build, read once from the dev dependency. */
function source(): string {
  axeSource ??= readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
  return axeSource;
}

/**
 * Runs axe-core inside a webview's inner frame (the page of the extension itself, not VS Code's
 * host frame around it) and gives the serious and critical violations. The script goes in through
 * Playwright's evaluate, which the page's Content-Security-Policy does not govern, so the webview
 * is checked exactly as it ships. Every rule axe runs by default (WCAG 2.x A and AA and best
 * practices) is run.
 */
export async function seriousFindings(frame: Frame): Promise<AxeFinding[]> {
  const loaded = await frame.evaluate(
    () => typeof (globalThis as { axe?: unknown }).axe === 'object',
  );
  if (!loaded) {
    await frame.evaluate(source());
  }
  const results = await frame.evaluate(async () => {
    const axe = (
      globalThis as unknown as {
        axe: { run(context: unknown, options: unknown): Promise<AxeResults> };
      }
    ).axe;
    const document = (globalThis as unknown as { document: unknown }).document;
    const found = await axe.run(document, { resultTypes: ['violations'] });
    return found.violations.map((violation) => ({
      id: violation.id,
      impact: violation.impact ?? 'unknown',
      help: violation.help,
      nodes: violation.nodes
        .slice(0, 5)
        .map(
          (node) =>
            `${node.target.map(String).join(' ')}: ${(node.failureSummary ?? '').replace(/\s+/g, ' ').trim()}`,
        ),
    }));
  });
  return results.filter((finding) => finding.impact === 'serious' || finding.impact === 'critical');
}

/** The findings as lines for a test's output and its failure message. */
export function describeFindings(findings: readonly AxeFinding[]): string {
  return findings
    .map(
      (finding) =>
        `${finding.impact} ${finding.id} (${finding.help}):\n${finding.nodes.map((node) => `    ${node}`).join('\n')}`,
    )
    .join('\n');
}

/** The first frame of the page holding `selector` (a webview's inner frame), waiting up to `timeoutMs`. */
export async function frameWith(page: Page, selector: string, timeoutMs = 30_000): Promise<Frame> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    for (const frame of page.frames()) {
      if (
        await frame
          .locator(selector)
          .count()
          .catch(() => 0)
      ) {
        return frame;
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`no webview frame holds ${selector}`);
}
