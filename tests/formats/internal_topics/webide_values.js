// Parse internal-topic keys and values with a spec the way the Kaitai Web IDE does, for
// tests/formats/internal_topics/test_webide_values.py.
//
//   node webide_values.js JOB.json      JOB: {"ksc", "spec", "main", "nested": null | "Value",
//                                             "param": null | int, "inputs": [hex, ...], "out"}
//
// The spec is compiled in debug mode with its imports read beside it (as the IDE does), the code
// is evaluated in a worker-like context that has loaded the runtime's KaitaiStream.js, and each
// input is parsed with the main class (or its nested type, given the parameter). The tree is
// exported with its seq fields (no instances), numbers as decimal strings, bytes as hex.
'use strict';
const fs = require('fs');
const path = require('path');
const vm = require('vm');

const job = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const NM = path.join(path.resolve(job.ksc), 'node_modules');

function exportValue(v) {
  if (v === undefined || v === null) return null;
  if (typeof v === 'boolean') return v;
  if (typeof v === 'number') return Number.isInteger(v) ? BigInt(v).toString() : String(v);
  if (typeof v === 'string') return { s: v };
  if (ArrayBuffer.isView(v)) return { b: Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('hex') };
  if (Array.isArray(v)) return v.map(exportValue);
  const out = {};
  for (const k of Object.keys(v)) if (k[0] !== '_') out[k] = exportValue(v[k]);
  return out;
}

(async () => {
  const compiler = require(path.join(NM, 'kaitai-struct-compiler'));
  const yaml = require(path.join(NM, 'js-yaml'));
  const dir = path.dirname(path.resolve(job.spec));
  const load = (f) => yaml.load(fs.readFileSync(f, 'utf8'));
  const importer = { importYaml: (name) => Promise.resolve(load(path.join(dir, name + '.ksy'))) };
  const files = await compiler.compile('javascript', load(job.spec), importer, true);
  const code = Object.values(files).join('');
  const ctx = vm.createContext({ console, TextDecoder }); // a browser worker has TextDecoder
  vm.runInContext('var self = globalThis;', ctx);
  vm.runInContext(fs.readFileSync(path.join(NM, 'kaitai-struct', 'KaitaiStream.js'), 'utf8'), ctx);
  vm.runInContext(code + '\nvar Main = ' + job.main + '.' + job.main + ';', ctx);
  const results = [];
  for (const hex of job.inputs) {
    const data = vm.runInContext('(function (n) { return new Uint8Array(n); })', ctx)(hex.length / 2);
    data.set(Buffer.from(hex, 'hex'));
    const io = new ctx.KaitaiStream(data, 0);
    const obj = job.nested ? new ctx.Main[job.nested](io, null, null, job.param) : new ctx.Main(io);
    try { obj._read(); results.push(exportValue(obj)); } catch (e) { results.push({ error: String(e) }); }
  }
  fs.writeFileSync(job.out, JSON.stringify(results));
})().catch((e) => { console.error(e); process.exit(1); });
