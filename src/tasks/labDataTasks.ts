import * as path from 'node:path';
import * as vscode from 'vscode';
import { MANIFEST_FILE_NAME } from '../../core/sync/manifest';
import { PROBLEM_MATCHER, TASK_TYPE } from '../constants';
import { TASK_COMMANDS, type FolderTaskRuns, type TaskCommand } from './folderTaskRuns';
import { TaskTerminal } from './taskTerminal';

/** A `lab-data` task's definition, as package.json's `taskDefinitions` declares it. */
export interface LabDataTaskDefinition extends vscode.TaskDefinition {
  readonly type: typeof TASK_TYPE;
  readonly command: TaskCommand;
  /** The folder with `lab-data-sync.json`, relative to the workspace folder. */
  readonly folder: string;
}

function isCommand(value: unknown): value is TaskCommand {
  return (TASK_COMMANDS as readonly unknown[]).includes(value);
}

/**
 * The `lab-data` task type: pull, verify, status and impact for each folder of the workspace that
 * has a manifest (found as the extension finds them everywhere, `**\/lab-data-sync.json`), each run
 * through the bundled core in a terminal of its own; `resolveTask` makes a `tasks.json` entry
 * with `"type": "lab-data"` run the same.
 */
export class LabDataTaskProvider implements vscode.TaskProvider {
  constructor(private readonly runs: FolderTaskRuns) {}

  async provideTasks(token: vscode.CancellationToken): Promise<vscode.Task[]> {
    const manifests = await vscode.workspace.findFiles(
      `**/${MANIFEST_FILE_NAME}`,
      '**/node_modules/**',
      1000,
      token,
    );
    const found = manifests
      .map((uri) => ({ uri, scope: vscode.workspace.getWorkspaceFolder(uri) }))
      .filter((each) => each.scope !== undefined)
      .map(({ uri, scope }) => ({
        scope: scope!,
        folder:
          path.relative(scope!.uri.fsPath, path.dirname(uri.fsPath)).split(path.sep).join('/') ||
          '.',
      }))
      .sort((a, b) => a.folder.localeCompare(b.folder));
    const several = found.length > 1;
    return found.flatMap(({ scope, folder }) =>
      TASK_COMMANDS.map((command) =>
        this.taskFor({ type: TASK_TYPE, command, folder }, scope, several),
      ),
    );
  }

  resolveTask(task: vscode.Task): vscode.Task | undefined {
    const definition = task.definition;
    if (definition.type !== TASK_TYPE || !isCommand(definition.command)) {
      return undefined;
    }
    const scope =
      task.scope !== undefined && typeof task.scope !== 'number'
        ? task.scope
        : vscode.workspace.workspaceFolders?.[0];
    if (!scope) {
      return undefined;
    }
    const resolved = this.taskFor(
      {
        ...definition,
        type: TASK_TYPE,
        command: definition.command,
        folder: typeof definition.folder === 'string' ? definition.folder : 'lab-reports',
      },
      scope,
      false,
    );
    // The definition object must be the one VS Code gave, or it cannot match the tasks.json entry.
    return new vscode.Task(
      definition,
      scope,
      task.name || resolved.name,
      TASK_TYPE,
      resolved.execution,
      resolved.problemMatchers,
    );
  }

  private taskFor(
    definition: LabDataTaskDefinition,
    scope: vscode.WorkspaceFolder,
    several: boolean,
  ): vscode.Task {
    const folder = path.resolve(scope.uri.fsPath, definition.folder);
    const name = several ? `${definition.command} ${definition.folder}` : definition.command;
    const task = new vscode.Task(
      definition,
      scope,
      name,
      TASK_TYPE,
      new vscode.CustomExecution(() =>
        Promise.resolve(
          new TaskTerminal(`lab-data ${definition.command} ${folder}`, (say, signal) =>
            this.runs.run(definition.command, folder, say, signal),
          ),
        ),
      ),
      [PROBLEM_MATCHER],
    );
    task.detail = vscode.l10n.t('Lab Data, through the extension (no lab-data on PATH needed)');
    if (definition.command === 'verify') {
      task.group = vscode.TaskGroup.Test;
    }
    return task;
  }
}
