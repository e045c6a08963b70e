import { parseArgs } from 'node:util';

const HELP = `svc — self-hostable, AI-assisted end-to-end testing

Usage: svc <command> [options]

Commands:
  start        Run the API, dashboard and local store on 127.0.0.1
  run          Run tests against an app and write reports (svc run --help)
  heal         Rank page elements against stored fingerprints (svc heal --help)
  export       Write tests as a Playwright Test project (svc export --help)
  analyze      List a codebase's testable surfaces (svc analyze --help)
  audit        Audit a page: accessibility, security, performance, console (svc audit --help)
  mcp          Serve svc's agent tools over MCP on stdin/stdout (svc mcp --help)
  login        Sign this machine's agents in to a server as you (svc login --help)
  logout       Revoke and forget that sign-in
  help         Show this help

Options for start:
  --port <n>        Port (env SVC_PORT, default 4600; 0 picks a free one)
  --data-dir <dir>  Data folder (env SVC_DATA_DIR, default ./.svc-data)
  --host <addr>     Loopback address: 127.0.0.1, localhost or ::1 (env SVC_HOST)

Run "svc <command> --help" for a command's options.
`;

/** The svc command line: thin; every command calls the same code the server runs. */
export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case undefined:
    case 'help':
    case '--help':
    case '-h':
      process.stdout.write(HELP);
      return 0;
    case '--version':
    case '-v':
      process.stdout.write('svc 0.1.0\n');
      return 0;
    case 'start': {
      const { values } = parseArgs({
        args: rest,
        options: { port: { type: 'string' }, 'data-dir': { type: 'string' }, host: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
        strict: true,
      });
      if (values.help) {
        process.stdout.write(HELP);
        return 0;
      }
      // Loaded on demand: the API and local runtime stay out of `svc run`, `svc export` and --help.
      const { startCommand } = await import('./start.ts');
      return startCommand({ port: values.port, dataDir: values['data-dir'], host: values.host });
    }
    case 'run': {
      // Loaded on demand: browser and database drivers stay out of `svc start` and --help.
      const { runCommand } = await import('./run.ts');
      return runCommand(rest);
    }
    case 'export': {
      const { exportCommand } = await import('./export.ts');
      return exportCommand(rest);
    }
    case 'analyze': {
      const { analyzeCommand } = await import('./analyze.ts');
      return analyzeCommand(rest);
    }
    case 'audit': {
      const { auditCommand } = await import('./audit.ts');
      return auditCommand(rest);
    }
    case 'mcp': {
      const { mcpCommand } = await import('./mcp.ts');
      return mcpCommand(rest);
    }
    case 'login': {
      const { loginCommand } = await import('./login.ts');
      return loginCommand(rest);
    }
    case 'logout': {
      const { logoutCommand } = await import('./login.ts');
      return logoutCommand(rest);
    }
    case 'heal': {
      // Loaded on demand, like run: the healing engine stays out of `svc start` and --help.
      const { healCommand } = await import('./heal.ts');
      return healCommand(rest);
    }
    default:
      process.stderr.write(`svc: unknown command "${command}"\nRun "svc help" for the commands.\n`);
      return 2;
  }
}
