// Worker for the tree-sitter scaling bench: parses the files it is given with tree-sitter alone (no extraction).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { parentPort, workerData } from 'node:worker_threads';

const require = createRequire(import.meta.url);
const Parser = require('tree-sitter');
const parser = new Parser();
parser.setLanguage(require('tree-sitter-python'));
for (const file of workerData) parser.parse(readFileSync(file, 'utf8'));
parentPort.postMessage('done');
