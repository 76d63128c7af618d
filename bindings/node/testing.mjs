// ES module entry of the test helper: the same as testing.js.
import testing from './testing.js';

export const { traced, traceDirName, testId, MODES } = testing;
export default testing;
