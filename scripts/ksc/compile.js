// Compiles .ksy specs with the npm kaitai-struct-compiler, the build the
// Kaitai Web IDE runs. Usage: node compile.js LANG OUTDIR SPEC.ksy...
// Imports resolve relative to the importing spec's folder, as in the Web IDE.
'use strict';
const fs = require('fs');
const path = require('path');
const compiler = require('kaitai-struct-compiler');
const yaml = require('js-yaml');

function loadKsy(file) {
  return yaml.load(fs.readFileSync(file, 'utf8'));
}

async function main() {
  const [lang, outDir, ...specs] = process.argv.slice(2);
  if (!lang || !outDir || specs.length === 0) {
    console.error('usage: node compile.js LANG OUTDIR SPEC.ksy...');
    process.exit(2);
  }
  fs.mkdirSync(outDir, { recursive: true });
  for (const spec of specs) {
    const dir = path.dirname(path.resolve(spec));
    const importer = {
      importYaml: (name, mode) => Promise.resolve(loadKsy(path.join(dir, name + '.ksy'))),
    };
    const files = await compiler.compile(lang, loadKsy(spec), importer, false);
    for (const [name, text] of Object.entries(files)) {
      fs.writeFileSync(path.join(outDir, name), text);
    }
  }
  console.log(`kaitai-struct-compiler ${compiler.version}: ${specs.length} specs -> ${outDir}`);
}

main().catch((e) => {
  console.error(e && e.stack ? e.stack : String(e));
  process.exit(1);
});
