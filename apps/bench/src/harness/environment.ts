import { cpus, release, totalmem, type } from 'node:os';

export interface Environment {
  node: string;
  cpu: string;
  cores: number;
  memory: string;
  os: string;
  date: string;
}

export function describeEnvironment(now = new Date()): Environment {
  const cpuList = cpus();
  return {
    node: process.version,
    cpu: cpuList[0]?.model.trim() ?? 'unknown',
    cores: cpuList.length,
    memory: `${Math.round(totalmem() / 1024 ** 3)} GiB`,
    os: `${type()} ${release()}`,
    date: now.toISOString().replace(/\.\d+Z$/, 'Z'),
  };
}
