import { type Agent, request as httpRequest, type OutgoingHttpHeaders } from 'node:http';

/**
 * POSTs a JSON payload through node:http on a keep-alive agent and reads the reply as text: what
 * the load workers use instead of fetch, so that the client costs as little CPU as it can.
 */
export function postJson(
  url: URL,
  agent: Agent,
  payload: string,
  headers: OutgoingHttpHeaders = {},
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      url,
      {
        method: 'POST',
        agent,
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(payload),
          ...headers,
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          text += chunk;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}
