import { createRequire } from 'node:module';
import type { Plugin } from 'vite';

/** The module the Builder imports its validators from. */
const ID = 'virtual:agent-config-validators';

/**
 * The Builder checks YAML against @adk/config's `AgentConfig.json` with ajv. The validators are
 * compiled here, at build time, with ajv's standalone code generation: the page ships plain
 * functions (no schema compiler, no `new Function` at run time), one per agent definition, named
 * after it (`LlmAgentConfig`, …), and the schema's `$defs` key list as `definitions`.
 */
export function agentConfigValidators(): Plugin {
  return {
    name: 'adk-agent-config-validators',
    resolveId: (source) => (source === ID ? `\0${ID}` : undefined),
    load(id) {
      if (id !== `\0${ID}`) return undefined;
      const require = createRequire(import.meta.url);
      const { Ajv2020 } = require('ajv/dist/2020.js') as typeof import('ajv/dist/2020.js');
      const standalone = (
        require('ajv/dist/standalone/index.js') as typeof import('ajv/dist/standalone/index.js')
      ).default;
      const schema = require('@adk/config/AgentConfig.json') as {
        $id: string;
        $defs: Record<string, unknown>;
      };
      const ajv = new Ajv2020({
        allErrors: true,
        strict: true,
        strictTypes: false,
        strictTuples: false,
        code: { source: true, esm: true },
      });
      ajv.addSchema(schema);
      const agents = Object.keys(schema.$defs).filter((name) =>
        /^(?:Base|Llm|Loop|Parallel|Sequential)AgentConfig$|^WorkflowConfig$/.test(name),
      );
      const refs = Object.fromEntries(agents.map((name) => [name, `${schema.$id}#/$defs/${name}`]));
      return `${standalone(ajv, refs)}\nexport const definitions = ${JSON.stringify(agents)};\n`;
    },
  };
}
