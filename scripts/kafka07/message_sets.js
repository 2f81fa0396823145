// Message sets as franz-kafka 0.7.5, a Kafka 0.7 client for Node, puts them in its produce requests.
// Usage: node message_sets.js NODE_MODULES < requests.json > message_sets.json
// Each request is {"codec": 0|1|2, "payloads": [base64...]} or {"codec": c, "nested": request}: a wrapper
// around a set that is itself one wrapper (franz-kafka's Message.setData takes any bytes as payload).
// franz-kafka's `snappy` dependency (node-snappy, a native module) writes a raw snappy block; snappyjs
// writes the same format in pure JavaScript and is handed to franz-kafka in its place.
"use strict";
const path = require("path");
const zlib = require("zlib");
const util = require("util");
const modules = process.argv[2];
const req = (name) => require(path.join(modules, name));
const crc32 = req("buffer-crc32");
const snappyjs = req("snappyjs");
const snappy = { compress: (buf, cb) => cb(null, Buffer.from(snappyjs.compress(buf))) };
const Message = req("franz-kafka/client/message.js")(zlib, snappy, crc32);
const ProduceRequest = req("franz-kafka/client/produce-request.js")(util.inherits, null, Message, null);

function messageSet(request, cb) {
  if (request.nested) {
    return messageSet(request.nested, (err, inner) => {
      if (err) return cb(err);
      const wrapper = new Message();
      wrapper.setData(inner, request.codec, (e) => cb(e, e ? null : wrapper.toBuffer()));
    });
  }
  const messages = request.payloads.map((p) => Message.create(Buffer.from(p, "base64")));
  new ProduceRequest({ compression: request.codec }, 0, messages)._compress(cb);
}

const requests = JSON.parse(require("fs").readFileSync(0, "utf8"));
const out = [];
(function next(i) {
  if (i === requests.length) {
    process.stdout.write(JSON.stringify(out) + "\n");
    return;
  }
  messageSet(requests[i], (err, buf) => {
    if (err) throw err;
    out.push(buf.toString("base64"));
    next(i + 1);
  });
})(0);
