import { adminDocumentUrl, documentSource, loadDocument, serviceDocumentUrl } from '../spec/loadDocument.js';
import { documentIds } from './adminDocument.js';

type DocumentName = 'service' | 'admin';
type DocumentFormat = 'json' | 'yaml';

/** A reply whose bytes go out as they are, with their media type (the served documents). */
export interface BytesReply {
  readonly status: number;
  readonly bytes: Buffer;
  readonly contentType: string;
}

const contentTypes: Readonly<Record<DocumentFormat, string>> = {
  json: 'application/json; charset=utf-8',
  yaml: 'application/yaml; charset=utf-8',
};

/**
 * Where the admin document's references into the service document point once served: the copy at `/openapi.json`,
 * relative to `/__admin/openapi.*`, so that a tool given the admin document's URL alone resolves them (the authored
 * `user-group-service.yaml#...` would resolve to `/__admin/user-group-service.yaml`, which does not exist).
 */
const servedServiceDocument = '../openapi.json';
const serviceRef = `${documentIds.service}#`;
const serviceRefInYaml = new RegExp(`(\\$ref:\\s*["']?)${serviceRef.replaceAll('.', '\\.')}`, 'g');

function text(name: DocumentName, format: DocumentFormat): string {
  if (name === 'service')
    return format === 'yaml'
      ? documentSource(serviceDocumentUrl)
      : JSON.stringify(loadDocument(serviceDocumentUrl));
  if (format === 'yaml')
    return documentSource(adminDocumentUrl).replace(serviceRefInYaml, `$1${servedServiceDocument}#`);
  return JSON.stringify(loadDocument(adminDocumentUrl), (key, value: unknown) =>
    key === '$ref' && typeof value === 'string' && value.startsWith(serviceRef)
      ? `${servedServiceDocument}#${value.slice(serviceRef.length)}`
      : value,
  );
}

const served = new Map<string, BytesReply>();

/**
 * A document as served by the running mock, made once per process: the service document's YAML as authored and its
 * JSON as `npm run build` writes it; the admin document likewise, its references into the service document pointing
 * at the served copy. Both are read from the package's own files, wherever it is installed.
 */
export function servedDocument(name: DocumentName, format: DocumentFormat): BytesReply {
  const key = `${name}.${format}`;
  let document = served.get(key);
  if (document === undefined) {
    const bytes = Buffer.from(text(name, format), 'utf8');
    document = { status: 200, bytes, contentType: contentTypes[format] };
    served.set(key, document);
  }
  return document;
}
