import type {
  AgentCapabilities,
  AgentCard,
  AgentInterface,
  AgentProvider,
  AgentSkill,
  SecurityRequirement,
  SecurityScheme,
} from './types.js';

/** What a server author writes; the server derives interfaces and versions from it. */
export interface AgentCardInput {
  name: string;
  description: string;
  version?: string;
  skills?: AgentSkill[];
  provider?: AgentProvider;
  documentationUrl?: string;
  iconUrl?: string;
  capabilities?: Omit<AgentCapabilities, 'extendedAgentCard'>;
  defaultInputModes?: string[];
  defaultOutputModes?: string[];
  securitySchemes?: { [name: string]: SecurityScheme };
  securityRequirements?: SecurityRequirement[];
}

/** The interfaces a server built by this package offers under `baseUrl`. */
export function defaultInterfaces(baseUrl: string): AgentInterface[] {
  return [
    { url: baseUrl, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
    { url: baseUrl, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
    { url: baseUrl, protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
    { url: baseUrl, protocolBinding: 'HTTP+JSON', protocolVersion: '0.3' },
  ];
}

export function buildAgentCard(
  input: AgentCardInput,
  baseUrl: string,
  flags: { streaming: boolean; pushNotifications: boolean; extendedAgentCard: boolean },
): AgentCard {
  return {
    name: input.name,
    description: input.description,
    supportedInterfaces: defaultInterfaces(baseUrl),
    ...(input.provider ? { provider: input.provider } : {}),
    version: input.version ?? '1.0.0',
    ...(input.documentationUrl ? { documentationUrl: input.documentationUrl } : {}),
    capabilities: {
      ...input.capabilities,
      streaming: flags.streaming,
      pushNotifications: flags.pushNotifications,
      extendedAgentCard: flags.extendedAgentCard,
    },
    ...(input.securitySchemes ? { securitySchemes: input.securitySchemes } : {}),
    ...(input.securityRequirements ? { securityRequirements: input.securityRequirements } : {}),
    defaultInputModes: input.defaultInputModes ?? ['text/plain', 'application/json'],
    defaultOutputModes: input.defaultOutputModes ?? ['text/plain', 'application/json'],
    skills: input.skills ?? [],
    ...(input.iconUrl ? { iconUrl: input.iconUrl } : {}),
  };
}

const V03_TRANSPORT: Record<string, string> = { JSONRPC: 'JSONRPC', 'HTTP+JSON': 'HTTP+JSON', GRPC: 'GRPC' };

function securitySchemeToV03(scheme: SecurityScheme): Record<string, unknown> {
  if ('apiKeySecurityScheme' in scheme) {
    const s = scheme.apiKeySecurityScheme;
    return {
      type: 'apiKey',
      in: s.location,
      name: s.name,
      ...(s.description ? { description: s.description } : {}),
    };
  }
  if ('httpAuthSecurityScheme' in scheme) {
    const s = scheme.httpAuthSecurityScheme;
    return {
      type: 'http',
      scheme: s.scheme,
      ...(s.bearerFormat ? { bearerFormat: s.bearerFormat } : {}),
      ...(s.description ? { description: s.description } : {}),
    };
  }
  if ('oauth2SecurityScheme' in scheme) {
    const s = scheme.oauth2SecurityScheme;
    return { type: 'oauth2', flows: s.flows, ...(s.description ? { description: s.description } : {}) };
  }
  if ('openIdConnectSecurityScheme' in scheme) {
    const s = scheme.openIdConnectSecurityScheme;
    return { type: 'openIdConnect', openIdConnectUrl: s.openIdConnectUrl };
  }
  return { type: 'mutualTLS' };
}

function requirementsToV03(reqs: SecurityRequirement[] | undefined): Record<string, string[]>[] | undefined {
  return reqs?.map((r) => Object.fromEntries(Object.entries(r.schemes).map(([k, v]) => [k, v.list])));
}

/**
 * The 0.3 form of a card. With `hybrid`, the 1.0 `supportedInterfaces` stay in, so 1.0 clients
 * that fetch without an `A2A-Version` header still find the 1.0 interfaces (0.3 clients ignore it).
 */
export function agentCardToV03(card: AgentCard, options: { hybrid?: boolean } = {}): Record<string, unknown> {
  const v03 = card.supportedInterfaces.filter((i) => i.protocolVersion === '0.3');
  const pool = v03.length > 0 ? v03 : card.supportedInterfaces;
  const primary = pool[0];
  const { extendedAgentCard, ...capabilities } = card.capabilities;
  return {
    protocolVersion: '0.3.0',
    name: card.name,
    description: card.description,
    url: primary?.url ?? '',
    preferredTransport: V03_TRANSPORT[primary?.protocolBinding ?? 'JSONRPC'] ?? primary?.protocolBinding,
    additionalInterfaces: pool.map((i) => ({ url: i.url, transport: i.protocolBinding })),
    ...(card.provider ? { provider: card.provider } : {}),
    version: card.version,
    ...(card.documentationUrl ? { documentationUrl: card.documentationUrl } : {}),
    ...(card.iconUrl ? { iconUrl: card.iconUrl } : {}),
    capabilities: { ...capabilities, stateTransitionHistory: false },
    ...(card.securitySchemes
      ? {
          securitySchemes: Object.fromEntries(
            Object.entries(card.securitySchemes).map(([k, v]) => [k, securitySchemeToV03(v)]),
          ),
        }
      : {}),
    ...(card.securityRequirements ? { security: requirementsToV03(card.securityRequirements) } : {}),
    defaultInputModes: card.defaultInputModes,
    defaultOutputModes: card.defaultOutputModes,
    skills: card.skills.map(({ securityRequirements, ...skill }) => ({
      ...skill,
      ...(securityRequirements ? { security: requirementsToV03(securityRequirements) } : {}),
    })),
    supportsAuthenticatedExtendedCard: extendedAgentCard === true,
    ...(options.hybrid ? { supportedInterfaces: card.supportedInterfaces } : {}),
  };
}
