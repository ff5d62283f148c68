// Parse Mermaid diagrams with Mermaid's own parser: reads a JSON list of diagram texts on stdin,
// prints a JSON list with one entry per diagram: null when it parses, else the parser's message.
import { JSDOM } from "jsdom";

const { window } = new JSDOM("<!doctype html><html><body></body></html>");
globalThis.window = window;
globalThis.document = window.document;
const { default: mermaid } = await import("mermaid");
mermaid.initialize({ startOnLoad: false });

let input = "";
for await (const chunk of process.stdin) input += chunk;
const results = [];
for (const text of JSON.parse(input)) {
  try {
    await mermaid.parse(text);
    results.push(null);
  } catch (error) {
    results.push(String(error?.message ?? error));
  }
}
process.stdout.write(JSON.stringify(results) + "\n");
