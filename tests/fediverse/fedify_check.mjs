// Skillo seen by Fedify (the ActivityPub framework Ghost's federation is built on), code
// no one here wrote: reads {site, lookups, requests} as JSON on stdin, prints what
// lookupObject found for each identifier and what verifyRequest said of each request
// Skillo sent. FEDIFY_MODULE is the path of @fedify/fedify's esm/mod.js (make test).
import { readFileSync } from "node:fs";

const fedify = await import(process.env.FEDIFY_MODULE);
const input = JSON.parse(readFileSync(0, "utf8"));
const site = new URL(input.site);

// Fedify asks https:// for handles; the test server speaks plain HTTP.
const realFetch = globalThis.fetch;
globalThis.fetch = (resource, init) => {
  const url = resource instanceof Request ? resource.url : String(resource);
  if (url.startsWith(`https://${site.host}/`)) {
    const plain = "http://" + url.slice("https://".length);
    resource = resource instanceof Request ? new Request(plain, resource) : plain;
  }
  return realFetch(resource, init);
};

const documentLoader = fedify.getDocumentLoader({ allowPrivateAddress: true });
const out = { lookups: {}, verified: [] };
for (const identifier of input.lookups) {
  const found = await fedify.lookupObject(identifier, {
    documentLoader,
    allowPrivateAddress: true,
  });
  out.lookups[identifier] = found == null ? null : {
    type: found.constructor.name,
    id: found.id?.href ?? null,
    name: found.name?.toString() ?? null,
    preferredUsername: found.preferredUsername?.toString() ?? null,
    inbox: found.inboxId?.href ?? null,
    url: found.url?.href ?? null,
  };
}
for (const sent of input.requests) {
  const headers = Object.fromEntries(
    Object.entries(sent.headers).filter(
      ([name]) => !["host", "content-length", "connection"].includes(name.toLowerCase()),
    ),
  );
  const request = new Request(sent.url, {
    method: "POST",
    headers,
    body: Buffer.from(sent.body, "base64"),
  });
  const key = await fedify.verifyRequest(request, { documentLoader });
  out.verified.push(key == null ? null : { keyId: key.id?.href, owner: key.ownerId?.href });
}
console.log(JSON.stringify(out));
