import * as assert from 'node:assert/strict';
import { existsSync, promises as fs } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { recordedFolder } from '../support/recordedFolder';
import { activateExtension, eventually, workspaceFolder } from './helpers';

/** The exit code of a task's process, once it ends. */
function exitOf(execution: Thenable<vscode.TaskExecution>): Promise<number | undefined> {
  return new Promise((resolve, reject) => {
    let started: vscode.TaskExecution | undefined;
    const ended: Array<{ execution: vscode.TaskExecution; exitCode: number | undefined }> = [];
    const listener = vscode.tasks.onDidEndTaskProcess((event) => {
      if (started === undefined) {
        ended.push(event);
      } else if (event.execution === started) {
        listener.dispose();
        resolve(event.exitCode);
      }
    });
    execution.then((each) => {
      started = each;
      const early = ended.find((event) => event.execution === each);
      if (early) {
        listener.dispose();
        resolve(early.exitCode);
      }
    }, reject);
  });
}

function matcherDiagnostics(uri: vscode.Uri): vscode.Diagnostic[] {
  return vscode.languages.getDiagnostics(uri).filter((each) => each.source === 'lab-data');
}

describe('lab-data tasks: pull, verify, status and impact through the bundled core', function () {
  this.timeout(180_000);
  let root: string;
  /** Relative to the workspace folder, as a task's `folder` is. */
  let failing: string;
  let passing: string;
  let lineOf: (id: string) => number;
  const tasksJson = (): string => path.join(workspaceFolder(), '.vscode', 'tasks.json');
  let tasksJsonBefore: string | undefined;

  before(async () => {
    await activateExtension();
    root = await fs.mkdtemp(path.join(workspaceFolder(), 'tasks-'));
    failing = `${path.basename(root)}/analysis/lab-reports`;
    passing = `${path.basename(root)}/clean/lab-reports`;
    ({ lineOf } = await recordedFolder(path.join(workspaceFolder(), failing), 'TSK'));
    await recordedFolder(path.join(workspaceFolder(), passing), 'CLN');
    // One changed and one missing file; the first is as recorded.
    await fs.writeFile(path.join(workspaceFolder(), failing, 'TSK-002.pdf'), 'annotated');
    await fs.rm(path.join(workspaceFolder(), failing, 'TSK-003.pdf'));
    tasksJsonBefore = await fs.readFile(tasksJson(), 'utf8').catch(() => undefined);
  });

  after(async () => {
    if (tasksJsonBefore === undefined) {
      await fs.rm(tasksJson(), { force: true });
    } else {
      await fs.writeFile(tasksJson(), tasksJsonBefore);
    }
    await fs.rm(root, { recursive: true, force: true });
  });

  async function providedTask(command: string, folder: string): Promise<vscode.Task> {
    const tasks = await vscode.tasks.fetchTasks({ type: 'lab-data' });
    const task = tasks.find(
      (each) =>
        each.source === 'lab-data' &&
        each.definition.command === command &&
        each.definition.folder === folder,
    );
    assert.ok(
      task,
      `lab-data ${command} for ${folder} among ${tasks.map((t) => t.name).join(', ')}`,
    );
    return task;
  }

  it('lists pull, verify, status and impact for each folder with a manifest, named with the folder when there are several', async () => {
    const tasks = (await vscode.tasks.fetchTasks({ type: 'lab-data' })).filter(
      (task) => task.definition.folder === failing,
    );
    assert.deepEqual(tasks.map((task) => task.definition.command).sort(), [
      'impact',
      'pull',
      'status',
      'verify',
    ]);
    for (const task of tasks) {
      assert.equal(task.source, 'lab-data');
      assert.equal(task.name, `${task.definition.command} ${failing}`);
      assert.ok(task.execution instanceof vscode.CustomExecution, 'runs through the bundled core');
      assert.equal(
        (task.scope as vscode.WorkspaceFolder).uri.fsPath,
        workspaceFolder(),
        'scoped to its workspace folder',
      );
    }
    assert.ok(
      (await vscode.tasks.fetchTasks({ type: 'lab-data' })).some(
        (task) => task.definition.folder === passing,
      ),
      'the other folder has its tasks too',
    );
  });

  it('verify on a folder with one changed and one missing file exits 1 and puts two Problems entries on their reports’ lines of the manifest', async () => {
    const manifestUri = vscode.Uri.file(
      path.join(workspaceFolder(), failing, 'lab-data-sync.json'),
    );
    const exitCode = await exitOf(vscode.tasks.executeTask(await providedTask('verify', failing)));
    assert.equal(exitCode, 1);
    const diagnostics = await eventually(() => {
      const found = matcherDiagnostics(manifestUri);
      assert.equal(found.length, 2, JSON.stringify(found));
      return found;
    });
    const byLine = [...diagnostics].sort((a, b) => a.range.start.line - b.range.start.line);
    assert.deepEqual(
      byLine.map((each) => each.range.start.line),
      [lineOf('TSK-002'), lineOf('TSK-003')],
    );
    assert.match(byLine[0]!.message, /TSK-002 \(Tasks lab\): TSK-002\.pdf changed/);
    assert.match(byLine[1]!.message, /TSK-003 \(Tasks lab\): TSK-003\.pdf is missing/);
    for (const each of diagnostics) {
      assert.equal(each.severity, vscode.DiagnosticSeverity.Error);
    }
  });

  it('verify on a folder as recorded exits 0; status, impact and pull end with lab-data’s codes too (pull 3 with no signed-in lab)', async () => {
    assert.equal(await exitOf(vscode.tasks.executeTask(await providedTask('verify', passing))), 0);
    assert.equal(
      await exitOf(vscode.tasks.executeTask(await providedTask('status', failing))),
      1,
      'status: two files not as recorded',
    );
    assert.equal(
      await exitOf(vscode.tasks.executeTask(await providedTask('impact', passing))),
      0,
      'impact: no script used another revision',
    );
    assert.equal(
      await exitOf(vscode.tasks.executeTask(await providedTask('pull', failing))),
      3,
      'pull: no signed-in lab serves the manifest’s lab, and the cache lacks the missing file',
    );
  });

  it('a task written by hand in tasks.json with "type": "lab-data" is resolved and runs; a dependsOn chain stops when verify fails', async () => {
    const marker = (name: string): string => path.join(root, `${name}.ran`);
    const analysis = (name: string, folder: string): unknown[] => [
      {
        label: `verify ${name}`,
        type: 'lab-data',
        command: 'verify',
        folder,
        problemMatcher: ['$lab-data'],
      },
      {
        label: `analysis ${name}`,
        type: 'shell',
        command: `echo ran > ${JSON.stringify(marker(name))}`,
        dependsOn: [`verify ${name}`],
        problemMatcher: [],
      },
    ];
    await fs.mkdir(path.dirname(tasksJson()), { recursive: true });
    await fs.writeFile(
      tasksJson(),
      JSON.stringify({
        version: '2.0.0',
        tasks: [...analysis('failing', failing), ...analysis('passing', passing)],
      }),
    );
    const handWritten = (label: string): Promise<vscode.Task> =>
      eventually(async () => {
        const task = (await vscode.tasks.fetchTasks()).find((each) => each.name === label);
        assert.ok(task, `VS Code read ${label} from tasks.json`);
        return task;
      });
    const verifyFailing = await handWritten('verify failing');
    assert.equal(verifyFailing.definition.type, 'lab-data');
    assert.equal(await exitOf(vscode.tasks.executeTask(verifyFailing)), 1);

    // The failing chain: its verify ends with 1 and the analysis never runs.
    const chainVerifyEnded = new Promise<number | undefined>((resolve) => {
      const listener = vscode.tasks.onDidEndTaskProcess((event) => {
        if (event.execution.task.name === 'verify failing') {
          listener.dispose();
          resolve(event.exitCode);
        }
      });
    });
    await vscode.tasks.executeTask(await handWritten('analysis failing'));
    assert.equal(await chainVerifyEnded, 1);
    // The passing chain runs after it: verify exits 0, then its analysis writes its marker.
    await vscode.tasks.executeTask(await handWritten('analysis passing'));
    await eventually(() => assert.ok(existsSync(marker('passing'))), 60_000);
    assert.ok(!existsSync(marker('failing')), 'the analysis after a failed verify did not run');
  });
});
