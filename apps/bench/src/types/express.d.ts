// The bench only mounts @a2a-js/sdk's Express handlers (the SDK's documented setup); these are the
// few Express types it touches, so the app does not need @types/express.
declare module 'express' {
  import type { IncomingMessage, Server, ServerResponse } from 'node:http';

  export interface Request extends IncomingMessage {
    body?: unknown;
  }
  export type RequestHandler = (req: Request, res: ServerResponse, next: (error?: unknown) => void) => void;
  export interface Express {
    use(path: string, ...handlers: RequestHandler[]): Express;
    listen(port: number, host: string, callback: () => void): Server;
  }
  export default function express(): Express;
}
