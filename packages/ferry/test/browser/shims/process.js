// The `process` a web app's bundler injects for dependencies written for Node (readable-stream under create-hash
// calls process.nextTick): the `process` package's browser build, as the usual Node-polyfill plugins give it.
import process from 'process/browser.js';

export { process };
