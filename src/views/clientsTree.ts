import * as vscode from 'vscode';
import type { RecordRef } from '../ui/commandTargets';
import { LabApiError } from '../../core/errors/errors';
import type { Client, Project, Report } from '../../core/api/records';
import { Views } from '../constants';
import type { Labs } from '../labs/labs';
import { LabTreeProvider, type LabScope } from './labTreeProvider';
import { LabNode, MessageNode, pagedChildren, shownItem } from './nodes';
import { ReportNode, reportTitle } from './reportNode';
import { sharedTitlePrefix } from './sharedTitles';
import { knownNames, recordTooltip, statusWord } from './recordText';
import type { PagedList } from './pagedList';
import type { SavedReportLookup } from './savedState';
import { countOf } from '../ui/counts';

/** True when the list failed because the tenant or scope does not offer that kind of record. */
function notOffered<T>(list: PagedList<T>): boolean {
  return (
    !list.loaded &&
    list.error instanceof LabApiError &&
    (list.error.code === 'forbidden' || list.error.code === 'notFound')
  );
}

export class ClientNode extends LabNode {
  readonly id: string;
  override readonly ref: RecordRef;

  constructor(
    private readonly tree: ClientsTreeProvider,
    readonly scope: LabScope,
    readonly client: Client,
  ) {
    super();
    this.id = `${scope.idPrefix}clients/client:${client.client_id}`;
    this.ref = { lab: scope.name, kind: 'client', id: client.client_id, record: client.raw };
    knownNames.remember(scope.name, 'client', client.client_id, client.name);
  }

  getTreeItem(): vscode.TreeItem {
    const { client } = this;
    const item = new vscode.TreeItem(
      client.name ?? client.client_id,
      vscode.TreeItemCollapsibleState.Collapsed,
    );
    item.id = this.id;
    item.description = [
      client.name ? client.client_id : undefined,
      client.status && client.status !== 'active' ? statusWord(client.status) : undefined,
    ]
      .filter(Boolean)
      .join(' · ');
    item.iconPath = new vscode.ThemeIcon(
      'organization',
      client.status && client.status !== 'active'
        ? new vscode.ThemeColor('disabledForeground')
        : undefined,
    );
    item.tooltip = recordTooltip(
      vscode.l10n.t('Client {0}', client.name ?? client.client_id),
      client.raw,
    );
    item.contextValue = 'labData.client';
    item.accessibilityInformation = {
      label: [
        vscode.l10n.t('Client {0}', client.name ?? client.client_id),
        item.description || undefined,
      ]
        .filter(Boolean)
        .join(', ')
        .replace(/ · /g, ', '),
    };
    return shownItem(item);
  }

  override getChildren(): Promise<LabNode[]> {
    return this.tree.clientChildren(this);
  }
}

const PROJECT_ICONS: Record<string, string> = { location: 'location', work_order: 'checklist' };

export class ProjectNode extends LabNode {
  readonly id: string;
  override readonly ref: RecordRef;

  constructor(
    private readonly tree: ClientsTreeProvider,
    readonly scope: LabScope,
    readonly project: Project,
    parentId: string,
  ) {
    super();
    this.id = `${parentId}/project:${project.project_id}`;
    this.ref = { lab: scope.name, kind: 'project', id: project.project_id, record: project.raw };
    knownNames.remember(scope.name, 'project', project.project_id, project.name);
  }

  getTreeItem(): vscode.TreeItem {
    const { project } = this;
    const item = new vscode.TreeItem(
      project.name ?? project.project_id,
      vscode.TreeItemCollapsibleState.Collapsed,
    );
    item.id = this.id;
    const kind = typeof project.raw.kind === 'string' ? project.raw.kind : undefined;
    item.description = [
      project.name ? project.project_id : undefined,
      kind && statusWord(kind),
      project.status && project.status !== 'active' ? statusWord(project.status) : undefined,
    ]
      .filter(Boolean)
      .join(' · ');
    item.iconPath = new vscode.ThemeIcon(
      PROJECT_ICONS[kind ?? ''] ?? 'project',
      project.status && project.status !== 'active'
        ? new vscode.ThemeColor('disabledForeground')
        : undefined,
    );
    item.tooltip = recordTooltip(
      vscode.l10n.t('Project {0}', project.name ?? project.project_id),
      project.raw,
    );
    item.contextValue = 'labData.project';
    item.accessibilityInformation = {
      label: [
        vscode.l10n.t('Project {0}', project.name ?? project.project_id),
        item.description || undefined,
      ]
        .filter(Boolean)
        .join(', ')
        .replace(/ · /g, ', '),
    };
    return shownItem(item);
  }

  override getChildren(): Promise<LabNode[]> {
    return this.tree.projectChildren(this);
  }
}

/**
 * Clients → their projects, locations or work orders → those projects' reports. Tenants without
 * client records get projects at the top; tenants without projects get a note and the client's reports.
 */
export class ClientsTreeProvider extends LabTreeProvider {
  constructor(labs: Labs, saved?: SavedReportLookup) {
    super(labs, Views.clients, saved);
  }

  protected mainList(scope: LabScope): {
    list: PagedList<unknown>;
    count: (count: number) => string;
  } {
    return {
      list: this.clientList(scope) as PagedList<unknown>,
      count: (count) => countOf('client', count),
    };
  }

  private clientList(scope: LabScope): PagedList<Client> {
    return this.list(
      scope,
      'clients',
      (api, page, signal) => api.listClients({ page }, signal),
      (client) => client.client_id,
    );
  }

  protected async roots(scope: LabScope): Promise<LabNode[]> {
    const clients = this.clientList(scope);
    await clients.ensureLoaded();
    if (!notOffered(clients)) {
      return pagedChildren(
        `${scope.idPrefix}clients`,
        clients,
        (client) => new ClientNode(this, scope, client),
        vscode.l10n.t('No clients in your access scope'),
        'client',
      );
    }
    const projects = this.list(
      scope,
      'projects',
      (api, page, signal) => api.listProjects({ page }, signal),
      (project) => project.project_id,
    );
    await projects.ensureLoaded();
    if (notOffered(projects)) {
      return [
        new MessageNode(
          `${scope.idPrefix}clients/none`,
          vscode.l10n.t('This lab shares neither client nor project records with your token'),
          'info',
        ),
      ];
    }
    return [
      new MessageNode(
        `${scope.idPrefix}clients/note`,
        vscode.l10n.t('This lab does not share client records; showing projects'),
        'info',
      ),
      ...(await pagedChildren(
        `${scope.idPrefix}clients/projects`,
        projects,
        (project) => new ProjectNode(this, scope, project, `${scope.idPrefix}clients`),
        vscode.l10n.t('No projects in your access scope'),
        'project',
      )),
    ];
  }

  async clientChildren(node: ClientNode): Promise<LabNode[]> {
    const { scope } = node;
    const clientId = node.client.client_id;
    const projects = this.list(
      scope,
      `client:${clientId}:projects`,
      (api, page, signal) => api.listProjects({ clientId, page }, signal),
      (project) => project.project_id,
    );
    await projects.ensureLoaded();
    if (!notOffered(projects)) {
      return pagedChildren(
        node.id,
        projects,
        (project) => new ProjectNode(this, scope, project, node.id),
        vscode.l10n.t('No projects for this client'),
        'project',
      );
    }
    const reports = this.list(
      scope,
      `client:${clientId}:reports`,
      (api, page, signal) => api.listReports({ clientId, page }, signal),
      (report) => report.report_id,
    );
    await reports.ensureLoaded();
    const shared = sharedTitlePrefix(reports.items.map(reportTitle));
    return [
      new MessageNode(
        `${node.id}/note`,
        vscode.l10n.t('Projects are not enabled for this lab; showing the client’s reports'),
        'info',
      ),
      ...(await pagedChildren(
        `${node.id}/reports`,
        reports,
        (report) => this.reportRow(scope, report, node.id, shared),
        vscode.l10n.t('No published reports for this client'),
        'report',
      )),
    ];
  }

  async projectChildren(node: ProjectNode): Promise<LabNode[]> {
    const { scope } = node;
    const projectId = node.project.project_id;
    const reports = this.list(
      scope,
      `project:${projectId}:reports`,
      (api, page, signal) => api.listReports({ projectId, page }, signal),
      (report) => report.report_id,
    );
    // A project's reports often all start with its name: each row leads with what tells it apart.
    await reports.ensureLoaded();
    const shared = sharedTitlePrefix(reports.items.map(reportTitle));
    return pagedChildren(
      node.id,
      reports,
      (report) => this.reportRow(scope, report, node.id, shared),
      vscode.l10n.t('No published reports for this project'),
      'report',
    );
  }

  /** A report's row under a client or project, leading with what differs from its neighbours. */
  private reportRow(
    scope: LabScope,
    report: Report,
    parentId: string,
    shared: string | undefined,
  ): ReportNode {
    return new ReportNode(
      report,
      parentId,
      scope.name,
      false,
      shared,
      this.savedState(scope.name, report.report_id),
      scope.several,
    );
  }
}
