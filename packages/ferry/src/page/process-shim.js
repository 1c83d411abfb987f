// The `process` the page's bundle gives dependencies written for Node (readable-stream, under create-hash, calls
// process.nextTick): the `process` package's browser build, injected by bundle.ts as Node-polyfill plugins do.
import process from 'process/browser.js';

export { process };
