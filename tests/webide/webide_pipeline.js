// The Kaitai Web IDE's parsing pipeline, in Node, for tests/webide/test_webide_pipeline.py.
//
//   node webide_pipeline.js JOB.json
//
// JOB.json:
//   {"ksc": "scripts/ksc",                 folder with node_modules (compiler, runtime, pako)
//    "mode": "debug" | "release",
//    "spec": "schemas/kafka_log.ksy",      compiled with its imports, as the Web IDE does; its
//                                          meta id names the main class (kafka_log: KafkaLog)
//    "compiledDir": null | DIR,            release mode: read DIR/*.js (from scripts/ksc/compile.js)
//    "userTypes": null | FILE,             the text of localStorage "userTypes"
//    "samples": [FILE, ...],
//    "specs": [[SPEC, [FILE, ...]], ...],  more specs, each opened in turn on its own files
//                                          (output "specs": {SPEC: {FILE: ...}})
//    "decompress": [[codec, magic, hex], ...],   payloads for KafkaDecompress.decompress
//    "out": FILE}
//
// What the Web IDE does (kaitai_struct_webide, src/v1/app.ts `recompile` and
// src/v1/kaitaiWorker.ts `initCode`/`reparse`), done here the same way:
//  * the compiler runs in debug mode on the opened spec, importing the others beside it;
//  * the generated files are joined with "" and prefixed by localStorage "userTypes" + "\n\n";
//  * in a worker (here a vm context: no require/module/exports/define/Buffer, `self` is the
//    global, TextDecoder as in any worker, importScripts loads the IDE's bundled files) that
//    has loaded KaitaiStream.js and set KaitaiStream.depUrls.zlib to the bundled pako_inflate.min.js, the code is run by a direct
//    `eval(code + "\nwi.MainClass = KafkaLog.KafkaLog")` (the class named by the spec's meta id);
//  * `new wi.MainClass(new KaitaiStream(buffer, 0))`, then `_read()` (debug code).
// The parsed tree is then exported with every seq field and every instance (lazy ones
// included), numbers as exact decimal strings of the JS doubles, bytes as hex.
'use strict';
const fs = require('fs');
const path = require('path');
const vm = require('vm');

const job = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const KSC = path.resolve(job.ksc);
const NM = path.join(KSC, 'node_modules');

// The Web IDE's worker loads these with importScripts (relative to its own URL).
const WEBIDE_URLS = {
  '../../lib/_npm/kaitai-struct/KaitaiStream.js': path.join(NM, 'kaitai-struct', 'KaitaiStream.js'),
  '../../lib/_npm/pako/pako_inflate.min.js': path.join(NM, 'pako', 'dist', 'pako_inflate.min.js'),
};

const yaml = require(path.join(NM, 'js-yaml'));

// The Web IDE names the main class after the spec's meta id, in UpperCamelCase
// (src/v1/app.ts, `reparse`: `jsClassName` from `ksySchema.meta.id`).
function mainClassName(specPath) {
  const id = yaml.load(fs.readFileSync(specPath, 'utf8')).meta.id;
  return id.split('_').map((p) => p.charAt(0).toUpperCase() + p.slice(1)).join('');
}

async function compileForWebIde(specPath, debug) {
  const compiler = require(path.join(NM, 'kaitai-struct-compiler'));
  const dir = path.dirname(path.resolve(specPath));
  const load = (f) => yaml.load(fs.readFileSync(f, 'utf8'));
  const importer = { importYaml: (name) => Promise.resolve(load(path.join(dir, name + '.ksy'))) };
  return compiler.compile('javascript', load(specPath), importer, debug);
}

function makeWorker() {
  // TextDecoder is a global of every browser worker: the runtime decodes strings with it.
  const ctx = vm.createContext({ console, TextDecoder });
  const imported = [];
  ctx.importScripts = (...urls) => {
    for (const url of urls) {
      const file = WEBIDE_URLS[url];
      if (!file) throw new Error('importScripts: no such Web IDE file: ' + url);
      imported.push(url);
      vm.runInContext(fs.readFileSync(file, 'utf8'), ctx, { filename: file });
    }
  };
  vm.runInContext(`
    var self = globalThis;
    importScripts("../../lib/_npm/kaitai-struct/KaitaiStream.js");
    KaitaiStream.depUrls = KaitaiStream.depUrls || {};
    KaitaiStream.depUrls.zlib = "../../lib/_npm/pako/pako_inflate.min.js";
    var wi = { MainClass: null };
    var apiMethods = {
      initCode: function (sourceCode, mainClassName) {
        eval(sourceCode + "\\nwi.MainClass = " + mainClassName + "." + mainClassName + ";");
      },
      reparse: function (buffer, callRead) {
        var root = new wi.MainClass(new KaitaiStream(buffer, 0));
        var error = null;
        try { if (callRead) root._read(); } catch (e) { error = e; }
        return { root: root, error: error };
      },
    };
  `, ctx, { filename: 'kaitaiWorker.js' });
  return { ctx, imported };
}

// A Uint8Array of the worker's realm holding a copy of `data`.
function ctxBytes(ctx, data) {
  const arr = vm.runInContext('(function (n) { return new Uint8Array(n); })', ctx)(data.length);
  arr.set(data);
  return arr;
}

function numStr(v) {
  if (Number.isInteger(v)) return BigInt(v).toString();
  return String(v);
}

function errStr(e) {
  if (e && typeof e === 'object') return (e.name ? e.name + ': ' : '') + (e.message || String(e));
  return String(e);
}

// The name the Web IDE shows for an enum value (kaitaiWorker.ts `exportValue`: the debug info's
// enumName, e.g. "Kafka07Log.Compression", looked up from the worker's global with the
// top-level name twice, as the generated modules export {Kafka07Log: constructor}).
let worker = null;
function enumLabel(debug, value) {
  if (!debug || !debug.enumName || typeof value !== 'number') return undefined;
  const names = debug.enumName.split('.');
  names.unshift(names[0]);
  let obj = worker;
  for (const n of names) obj = obj && obj[n];
  return obj ? obj[value] : undefined;
}

function exportValue(v, debug) {
  if (v === undefined || v === null) return null;
  if (typeof v === 'boolean') return v;
  if (typeof v === 'number') {
    const en = enumLabel(debug, v);
    return en === undefined ? { n: numStr(v) } : { n: numStr(v), en };
  }
  if (typeof v === 'string') return { s: v };
  if (ArrayBuffer.isView(v)) return { b: Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('hex') };
  if (Array.isArray(v)) return v.map((x, i) => exportValue(x, debug && debug.arr && debug.arr[i]));
  if (typeof v === 'object') {
    const fields = {};
    for (const k of Object.keys(v)) {
      if (k[0] === '_') continue;
      fields[k] = exportValue(v[k], v._debug && v._debug[k]);
    }
    const instances = {};
    const computed = []; // instances the parse already evaluated: the Web IDE shows them as fields
    const proto = Object.getPrototypeOf(v);
    for (const name of Object.getOwnPropertyNames(proto)) {
      if (name[0] === '_' || name === 'constructor') continue;
      const desc = Object.getOwnPropertyDescriptor(proto, name);
      if (!desc || !desc.get) continue;
      if (Object.prototype.hasOwnProperty.call(v, '_m_' + name)) computed.push(name);
      let value;
      try {
        value = exportValue(v[name], v._debug && v._debug['_m_' + name]);
      } catch (e) {
        value = { e: errStr(e) };
      }
      instances[name] = value;
    }
    return { t: v.constructor.name, f: fields, i: instances, c: computed };
  }
  return { s: String(v) };
}

async function sourceFor(spec) {
  if (job.compiledDir) {
    // Release code written by scripts/ksc/compile.js, joined as the Web IDE joins its files.
    const files = fs.readdirSync(job.compiledDir).filter((f) => f.endsWith('.js')).sort();
    return files.map((f) => fs.readFileSync(path.join(job.compiledDir, f), 'utf8')).join('');
  }
  const compiled = await compileForWebIde(spec, job.mode === 'debug');
  return Object.keys(compiled).map((x) => compiled[x]).join('');
}

async function main() {
  let userTypes = job.userTypes ? fs.readFileSync(job.userTypes, 'utf8') : '';
  if (userTypes) userTypes += '\n\n';

  const { ctx, imported } = makeWorker();
  worker = ctx;
  const api = ctx.apiMethods;
  const t0 = Date.now();

  // Each spec is opened in turn, as a user opens one spec after another in the same IDE.
  const parseAll = async (spec, samples) => {
    const sourceCode = await sourceFor(spec);
    const mainClass = mainClassName(spec);
    api.initCode(userTypes + sourceCode, mainClass);
    const parsed = {};
    for (const sample of samples || []) {
      // The worker gets its own copy of the file's ArrayBuffer (postMessage's structured clone).
      const buffer = ctxBytes(ctx, fs.readFileSync(sample)).buffer;
      // A fresh initCode per file, as the Web IDE re-evaluates the code on each reparse.
      api.initCode(userTypes + sourceCode, mainClass);
      const { root, error } = api.reparse(buffer, job.mode === 'debug');
      parsed[sample] = { tree: exportValue(root), error: error ? errStr(error) : null };
    }
    return parsed;
  };

  const result = { samples: await parseAll(job.spec, job.samples), specs: {}, decompress: [], imported: null };
  for (const [spec, samples] of job.specs || []) result.specs[spec] = await parseAll(spec, samples);
  const ns = ctx.KafkaDecompress;
  for (const [codec, magic, hex] of job.decompress || []) {
    if (!ns || !ns.KafkaDecompress) {
      result.decompress.push({ e: 'KafkaDecompress is not loaded' });
      continue;
    }
    try {
      const bytes = ctxBytes(ctx, Buffer.from(hex, 'hex'));
      const out = new ns.KafkaDecompress(codec, magic).decode(bytes);
      result.decompress.push({ b: Buffer.from(out.buffer, out.byteOffset, out.byteLength).toString('hex') });
    } catch (e) {
      result.decompress.push({ e: errStr(e) });
    }
  }
  result.imported = imported;
  result.ms = Date.now() - t0;
  fs.writeFileSync(job.out, JSON.stringify(result));
}

main().catch((e) => {
  console.error(e && e.stack ? e.stack : String(e));
  process.exit(1);
});
