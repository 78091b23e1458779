import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Command } from 'commander';
import { CliUsageError } from '../errors.js';
import type { CommandModule } from './command.js';
import { parsePort } from './command.js';
import { VENDOR_FOLDER } from './create.js';

export interface DeployDockerOptions {
  /** The port the server listens on inside the container (default 8000). */
  port?: number;
  /** Serve the web UI too (`adk web`) instead of the API only (`adk api_server`). */
  web?: boolean;
  /** Replace an existing Dockerfile / .dockerignore. */
  force?: boolean;
  /** The base image (default `node:22-slim`; a build can override it with `--build-arg NODE_IMAGE=…`). */
  nodeImage?: string;
}

/** The default base image: Node 22 (what the scaffold's `engines` asks for; ≥ 22.5, so sqlite:// works). */
export const DEFAULT_NODE_IMAGE = 'node:22-slim';

/** What `.dockerignore` keeps out of the image: installs, secrets, local data and VCS files. */
const DOCKERIGNORE = `# Written by \`adk deploy docker\`.
node_modules
.env
.env.*
!.env.example
.adk
.git
*.log
Dockerfile
.dockerignore
`;

function dockerfile(o: { port: number; web: boolean; nodeImage: string; vendor: boolean }): string {
  const command = o.web ? 'web' : 'api_server';
  return `# Written by \`adk deploy docker\`: an image of this agent project that serves it with
# \`adk ${command}\` on port ${o.port}.
#   podman build -t my-agent .        (or docker build)
#   podman run -p ${o.port}:${o.port} --env-file .env -v my-agent-data:/app/.adk my-agent
# Sessions: embedded PGlite in /app/.adk (mount a volume there to keep them), or set DATABASE_URL
# (postgres://…) to use a database server. Model keys come from the environment (--env-file .env).
ARG NODE_IMAGE=${o.nodeImage}
FROM \${NODE_IMAGE}
WORKDIR /app
# Dependencies first, so that editing the agent does not reinstall them.
COPY package.json package-lock.json* ./
${o.vendor ? `COPY ${VENDOR_FOLDER} ./${VENDOR_FOLDER}\n` : ''}RUN npm ci --no-audit --no-fund || npm install --no-audit --no-fund
COPY . .
ENV NODE_ENV=production
EXPOSE ${o.port}
USER node
CMD ["node_modules/.bin/adk", "${command}", ".", "--host", "0.0.0.0", "--port", "${o.port}"]
`;
}

/** Checks that `dir` is an agent project (package.json with @adk/cli, and an agent) and writes the files. */
export function writeDockerFiles(
  dir: string,
  options: DeployDockerOptions = {},
): { dockerfile: string; dockerignore: string } {
  const root = resolve(dir);
  const manifestFile = join(root, 'package.json');
  if (!existsSync(manifestFile)) {
    throw new CliUsageError(
      `${root} has no package.json: run adk deploy docker in a project made by adk create`,
    );
  }
  let manifest: { dependencies?: Record<string, string>; devDependencies?: Record<string, string> };
  try {
    manifest = JSON.parse(readFileSync(manifestFile, 'utf8')) as typeof manifest;
  } catch (error) {
    throw new CliUsageError(`${manifestFile} is not valid JSON`, { cause: error });
  }
  if (!{ ...manifest.dependencies, ...manifest.devDependencies }['@adk/cli']) {
    throw new CliUsageError(
      `${manifestFile} does not depend on @adk/cli, which the image runs: npm install -D @adk/cli (adk create adds it)`,
    );
  }
  const agent = ['agent.ts', 'agent.js', 'root_agent.yaml'].find((f) => existsSync(join(root, f)));
  if (!agent) {
    throw new CliUsageError(`${root} has no agent.ts, agent.js or root_agent.yaml: nothing to serve`);
  }
  const dockerfilePath = join(root, 'Dockerfile');
  const ignorePath = join(root, '.dockerignore');
  if (!options.force) {
    const existing = [dockerfilePath, ignorePath].filter((f) => existsSync(f));
    if (existing.length > 0)
      throw new CliUsageError(
        `${existing.join(' and ')} already exist${existing.length === 1 ? 's' : ''}: use --force to replace`,
      );
  }
  const port = options.port ?? 8000;
  writeFileSync(
    dockerfilePath,
    dockerfile({
      port,
      web: options.web ?? false,
      nodeImage: options.nodeImage ?? DEFAULT_NODE_IMAGE,
      vendor: existsSync(join(root, VENDOR_FOLDER)),
    }),
  );
  writeFileSync(ignorePath, DOCKERIGNORE);
  return { dockerfile: dockerfilePath, dockerignore: ignorePath };
}

export const deployCommand: CommandModule = (program: Command) => {
  const deploy = program.command('deploy').description('package an agent project for deployment');
  deploy
    .command('docker')
    .description('write a Dockerfile and .dockerignore that serve the project with adk api_server')
    .argument('[project]', 'the project folder (made by adk create)', '.')
    .option('--port <port>', 'port inside the container', parsePort, 8000)
    .option('--web', 'serve the web UI too (adk web) instead of the API only')
    .option('--node-image <image>', 'base image', DEFAULT_NODE_IMAGE)
    .option('--force', 'replace an existing Dockerfile and .dockerignore')
    .addHelpText(
      'after',
      `
Then build and run the image with podman or docker:
  podman build -t my-agent .
  podman run -p 8000:8000 --env-file .env -v my-agent-data:/app/.adk my-agent`,
    )
    .action((project: string, options: DeployDockerOptions) => {
      const written = writeDockerFiles(project, options);
      process.stdout.write(`Wrote ${written.dockerfile}\nWrote ${written.dockerignore}\n`);
    });
};
