import { useEffect, useState } from 'preact/hooks';
import { api } from '../api/client.js';
import type { JsonObject } from '../api/types.js';

type AgentSkills = Awaited<ReturnType<typeof api.skills>>['agents'][number];

/**
 * The skills each agent of the app can load (`GET /dev/apps/{app}/skills`), with the ones loaded in
 * this session marked: a skill is loaded while `<statePrefix><name>` is true in the session state,
 * which is how `@adk/skills` records `load_skill` and `unload_skill` in the log.
 */
export function SkillsTab({ app, state }: { app?: string; state: JsonObject }) {
  const [agents, setAgents] = useState<AgentSkills[] | undefined>();
  const [error, setError] = useState<string | undefined>();
  useEffect(() => {
    setAgents(undefined);
    setError(undefined);
    if (!app) return;
    api
      .skills(app)
      .then((r) => setAgents(r.agents))
      .catch((e: Error) => setError(e.message));
  }, [app]);
  if (!app) return <p class="muted pad">Pick an app to see its skills.</p>;
  if (error) return <p class="field-error pad">{error}</p>;
  if (!agents) return <p class="muted pad">Loading…</p>;
  if (agents.length === 0)
    return (
      <p class="muted pad">No agent of this app has skills (a toolset such as @adk/skills' SkillToolset).</p>
    );
  return (
    <div class="pad skills">
      {agents.map((a) => {
        const loaded = a.skills.filter((s) => state[`${a.statePrefix}${s.name}`] === true).length;
        return (
          <section key={a.agent} aria-label={`Skills of ${a.agent}`}>
            <h3 class="small">
              <code>{a.agent}</code>{' '}
              <span class="muted">
                — {loaded} of {a.skills.length} loaded
              </span>
            </h3>
            <ul class="skill-list">
              {a.skills.map((s) => {
                const on = state[`${a.statePrefix}${s.name}`] === true;
                return (
                  <li key={s.name} aria-label={`Skill ${s.name}${on ? ', loaded' : ''}`}>
                    <code>{s.name}</code>{' '}
                    {on ? <span class="badge result">loaded</span> : <span class="badge">available</span>}
                    <div class="muted small">{s.description}</div>
                  </li>
                );
              })}
            </ul>
          </section>
        );
      })}
    </div>
  );
}
