// Types of `uidrive/testing`: traces per test for node:test and Vitest.
import type { App } from './index';

export type TracingMode = 'on' | 'off' | 'retain-on-failure';

export interface TracedOptions {
  /** on: keep every test's trace; retain-on-failure: a failed test's only; off (default: $UIDRIVE_TRACING, else off). */
  mode?: TracingMode;
  /** Where traces go, as `<outputDir>/<test id>/trace.zip` (default: $UIDRIVE_OUTPUT, else `test-results`). */
  outputDir?: string;
  /** Called with each trace written (default: a line on stderr). */
  onTrace?: (file: string, testId: string) => void;
}

/** Starts tracing `app` (as the mode says) and hands it back; the helper closes it when the test ends. */
export type Trace = (app: App) => Promise<App>;

/** Wraps a test function: it gets the runner's context, then `trace`. */
export declare function traced<C, R>(
  body: (context: C, trace: Trace) => R | Promise<R>,
  options?: TracedOptions,
): (context: C) => Promise<R>;

/** A test id as a directory name. */
export declare function traceDirName(id: string): string;
/** A test's name as node:test or Vitest gives it. */
export declare function testId(context: unknown): string;
export declare const MODES: readonly TracingMode[];
