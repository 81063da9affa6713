import { hash } from 'node:crypto';

/** How the model names an API key: its SHA-256 digest (taken once per exchange; the key itself is not kept). */
export const keyScope = (apiKey: string): string => hash('sha256', apiKey, 'base64');
