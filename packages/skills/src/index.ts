export {
  defineSkill,
  listSkillResources,
  loadSkillFromDir,
  loadSkillsFromDir,
  parseSkillMarkdown,
  RESOURCE_FOLDERS,
  type ResourceFolder,
  readSkillResource,
  type Skill,
  SkillFormatError,
  type SkillFrontmatter,
  skillFrontmatterSchema,
} from './skill.js';
export {
  ACTIVE_SKILL_STATE_PREFIX,
  activeSkills,
  formatSkillsAsXml,
  type SkillScriptEnvironment,
  SkillToolset,
  type SkillToolsetOptions,
  skillSystemInstruction,
  UNLOADED_SKILL_NOTE,
} from './skill-toolset.js';
