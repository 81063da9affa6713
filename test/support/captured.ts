import { vi } from 'vitest';

/** Runs `run` (or any command-line function) in this process and returns its exit code and what it wrote. */
export async function captured(
  command: () => Promise<number>,
): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const out = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    stdout += String(chunk);
    return true;
  });
  const err = vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
    stderr += String(chunk);
    return true;
  });
  try {
    return { code: await command(), stdout, stderr };
  } finally {
    out.mockRestore();
    err.mockRestore();
  }
}
