// ES module entry: the same native module as index.js, with named exports.
import native from './index.js';

export const {
  version,
  cliMain,
  connect,
  launch,
  attach,
  headless,
  expect,
  App,
  Desktop,
  Window,
  Keyboard,
  Process,
  Locator,
  Expect,
  Tracing,
  Clipboard,
  Notification,
  TrayItem,
  TrayMenuItem,
} = native;

export default native;
