'use strict';
// Traces per test for node:test and Vitest, as the pytest plugin's
// --uidrive-tracing gives pytest (docs/trace.md):
//
//   const { traced } = require('uidrive/testing');
//   test('computes', traced(async (t, trace) => {
//     const app = await trace(await desktop.launch(['gnome-calculator']));
//     ...
//   }));
//
// `trace(app)` starts recording `app` and hands it back; when the test ends the
// helper writes each trace (or drops it, as the mode says) and then closes the
// app. The mode is `options.mode`, else $UIDRIVE_TRACING, else `off`:
// `on` keeps every test's trace, `retain-on-failure` only a failed test's.
// Traces go to `<outputDir>/<test id>/trace.zip` (`trace-2.zip`, ... for a
// test's later apps); outputDir is `options.outputDir`, else $UIDRIVE_OUTPUT,
// else `test-results`.
const path = require('node:path');

const MODES = ['on', 'off', 'retain-on-failure'];

/** A test's name as node:test (`fullName`, `name`) or Vitest (`task`) gives it. */
function testId(context) {
  if (!context || typeof context !== 'object') return 'test';
  const task = context.task;
  if (task && typeof task === 'object') {
    const file = task.file && task.file.name ? `${task.file.name} ` : '';
    return `${file}${task.name ?? 'test'}`;
  }
  return context.fullName ?? context.name ?? 'test';
}

/** A test id as a directory name, as the pytest plugin makes them. */
function traceDirName(id) {
  const name = String(id).replace(/[^A-Za-z0-9_.-]+/g, '-').replace(/^[-.]+|[-.]+$/g, '');
  return name || 'test';
}

function tracingMode(options) {
  const mode = options.mode ?? process.env.UIDRIVE_TRACING ?? 'off';
  if (!MODES.includes(mode)) {
    const error = new Error(`uidrive tracing mode ${JSON.stringify(mode)} is not one of ${MODES.join(', ')}`);
    error.code = 'invalid_request';
    error.suggestion = 'set UIDRIVE_TRACING (or options.mode) to on, off or retain-on-failure';
    throw error;
  }
  return mode;
}

/**
 * Wraps a test function so the apps it hands to `trace(app)` are traced.
 * The wrapped function gets the runner's context first, then `trace`.
 */
function traced(body, options = {}) {
  return async function tracedTest(context, ...rest) {
    const mode = tracingMode(options);
    const id = testId(context);
    const dir = path.join(options.outputDir ?? process.env.UIDRIVE_OUTPUT ?? 'test-results', traceDirName(id));
    const apps = [];
    const traces = [];
    const trace = async (app) => {
      apps.push(app);
      if (mode !== 'off') await app.tracing.start({ title: id });
      return app;
    };
    let failed = true;
    try {
      const result = await body(context, trace, ...rest);
      failed = false;
      return result;
    } finally {
      const keep = mode === 'on' || (mode === 'retain-on-failure' && failed);
      const problems = [];
      for (const [n, app] of apps.entries()) {
        try {
          if (mode !== 'off') {
            const file = path.join(dir, n === 0 ? 'trace.zip' : `trace-${n + 1}.zip`);
            const written = await app.tracing.stop(keep ? { path: file } : {});
            if (written) traces.push(written.path);
          }
        } catch (error) {
          problems.push(error);
        }
        try {
          await app.close();
        } catch (error) {
          problems.push(error);
        }
      }
      if (traces.length > 0 && typeof options.onTrace === 'function') {
        for (const file of traces) options.onTrace(file, id);
      } else if (traces.length > 0) {
        for (const file of traces) process.stderr.write(`uidrive trace: ${file} (${id})\n`);
      }
      // The test's own failure wins; a failure to write its trace fails a passing test.
      if (!failed && problems.length > 0) throw problems[0];
    }
  };
}

module.exports = { traced, traceDirName, testId, MODES };
