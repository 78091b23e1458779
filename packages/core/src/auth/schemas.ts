import { lazySchema } from '../utils/zod.js';
import type { AuthConfig } from './auth-credential.js';

/** The auth config a client sends back (validated at the edge; unknown fields are kept). */
export const authConfigSchema = /* @__PURE__ */ lazySchema((z) => {
  const credential = z.looseObject({
    authType: z.enum(['apiKey', 'http', 'oauth2', 'openIdConnect', 'serviceAccount']),
    resourceRef: z.string().optional(),
    apiKey: z.string().optional(),
    http: z
      .looseObject({
        scheme: z.string(),
        credentials: z.looseObject({
          username: z.string().optional(),
          password: z.string().optional(),
          token: z.string().optional(),
        }),
      })
      .optional(),
    oauth2: z
      .looseObject({
        clientId: z.string().optional(),
        authUri: z.string().optional(),
        state: z.string().optional(),
        redirectUri: z.string().optional(),
        authResponseUri: z.string().optional(),
        authCode: z.string().optional(),
        accessToken: z.string().optional(),
        refreshToken: z.string().optional(),
        expiresAt: z.number().optional(),
        expiresIn: z.number().optional(),
      })
      .optional(),
  });
  return z.looseObject({
    authScheme: z.looseObject({ type: z.enum(['apiKey', 'http', 'oauth2', 'openIdConnect']) }),
    rawAuthCredential: credential.optional(),
    exchangedAuthCredential: credential.optional(),
    credentialKey: z.string().optional(),
  }) as unknown as import('zod').ZodType<AuthConfig>;
});
