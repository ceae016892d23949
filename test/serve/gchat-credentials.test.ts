/**
 * Google Chat without credentials: `turnlog serve` refuses to start, naming
 * what is missing, unless `apiUrl` points at an emulator; `/healthz` names
 * the cause when a surface is not ready.
 */
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config.js';
import { startServe } from '../../src/serve/index.js';

const base = { ingest: { port: 0 }, log: { level: 'silent' } };

describe('serve: Google Chat credentials', () => {
  it('refuses to start without credentials, naming what is missing', async () => {
    const start = startServe({ config: { ...base, platforms: { gchat: {} } }, env: {} });
    await expect(start).rejects.toBeInstanceOf(ConfigError);
    await expect(startServe({ config: { ...base, platforms: { gchat: {} } }, env: {} })).rejects.toThrow(
      /platforms\.gchat: no Google credentials: give platforms\.gchat\.credentials .*GOOGLE_APPLICATION_CREDENTIALS.*apiUrl/,
    );
  });

  it('refuses a credentials file that does not exist, and an ADC variable naming a missing file', async () => {
    await expect(
      startServe({
        config: { ...base, platforms: { gchat: { credentials: '/nonexistent/key.json' } } },
        env: {},
      }),
    ).rejects.toThrow(
      /platforms\.gchat\.credentials: no service-account key file at "\/nonexistent\/key\.json"/,
    );
    await expect(
      startServe({
        config: { ...base, platforms: { gchat: {} } },
        env: { GOOGLE_APPLICATION_CREDENTIALS: '/nonexistent/adc.json' },
      }),
    ).rejects.toThrow(
      /GOOGLE_APPLICATION_CREDENTIALS names "\/nonexistent\/adc\.json", which does not exist/,
    );
  });

  it('starts against an emulator (any apiUrl) without credentials; /healthz names the cause when it is down', async () => {
    const serve = await startServe({
      config: { ...base, platforms: { gchat: { apiUrl: 'http://127.0.0.1:9' } } },
      env: {},
    });
    try {
      const res = await fetch(`${serve.url}/healthz`);
      expect(res.status).toBe(503);
      expect(await res.json()).toEqual({
        ok: false,
        notReady: [
          {
            surface: 'gchat',
            reason: expect.stringMatching(
              /the Google Chat emulator at http:\/\/127\.0\.0\.1:9 did not answer/,
            ),
          },
        ],
      });
    } finally {
      await serve.close();
    }
  });
});
