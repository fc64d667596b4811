import * as vscode from 'vscode';
import type { LabSession } from '../auth/labSession';
import { LabApiError } from '../core/errors';
import type { Client, Project } from '../core/records';
import { Views } from '../constants';
import { LabTreeProvider } from './labTreeProvider';
import { LabNode, MessageNode, ReportNode, pagedChildren, recordTooltip } from './nodes';
import type { PagedList } from './pagedList';

/** True when the list failed because the tenant or scope does not offer that kind of record. */
function notOffered<T>(list: PagedList<T>): boolean {
  return !list.loaded && list.error instanceof LabApiError && (list.error.code === 'forbidden' || list.error.code === 'notFound');
}

export class ClientNode extends LabNode {
  readonly id: string;

  constructor(
    private readonly tree: ClientsTreeProvider,
    readonly client: Client,
  ) {
    super();
    this.id = `clients/client:${client.client_id}`;
  }

  getTreeItem(): vscode.TreeItem {
    const { client } = this;
    const item = new vscode.TreeItem(client.name ?? client.client_id, vscode.TreeItemCollapsibleState.Collapsed);
    item.id = this.id;
    item.description = [client.name ? client.client_id : undefined, client.status && client.status !== 'active' ? client.status : undefined].filter(Boolean).join(' · ');
    item.iconPath = new vscode.ThemeIcon('organization', client.status && client.status !== 'active' ? new vscode.ThemeColor('disabledForeground') : undefined);
    item.tooltip = recordTooltip(`Client ${client.name ?? client.client_id}`, client.raw);
    item.contextValue = 'labData.client';
    return item;
  }

  override getChildren(): Promise<LabNode[]> {
    return this.tree.clientChildren(this);
  }
}

const PROJECT_ICONS: Record<string, string> = { location: 'location', work_order: 'checklist' };

export class ProjectNode extends LabNode {
  readonly id: string;

  constructor(
    private readonly tree: ClientsTreeProvider,
    readonly project: Project,
    parentId: string,
  ) {
    super();
    this.id = `${parentId}/project:${project.project_id}`;
  }

  getTreeItem(): vscode.TreeItem {
    const { project } = this;
    const item = new vscode.TreeItem(project.name ?? project.project_id, vscode.TreeItemCollapsibleState.Collapsed);
    item.id = this.id;
    const kind = typeof project.raw.kind === 'string' ? project.raw.kind : undefined;
    item.description = [project.name ? project.project_id : undefined, kind?.replace('_', ' '), project.status && project.status !== 'active' ? project.status : undefined].filter(Boolean).join(' · ');
    item.iconPath = new vscode.ThemeIcon(PROJECT_ICONS[kind ?? ''] ?? 'project', project.status && project.status !== 'active' ? new vscode.ThemeColor('disabledForeground') : undefined);
    item.tooltip = recordTooltip(`Project ${project.name ?? project.project_id}`, project.raw);
    item.contextValue = 'labData.project';
    return item;
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
  constructor(session: LabSession) {
    super(session, Views.clients);
  }

  protected async roots(): Promise<LabNode[]> {
    const clients = this.list('clients', (api, page) => api.listClients({ page }), (client) => client.client_id);
    await clients.ensureLoaded();
    if (!notOffered(clients)) {
      return pagedChildren('clients', clients, (client) => new ClientNode(this, client), 'No clients in your access scope', 'clients');
    }
    const projects = this.list('projects', (api, page) => api.listProjects({ page }), (project) => project.project_id);
    await projects.ensureLoaded();
    if (notOffered(projects)) {
      return [new MessageNode('clients/none', 'This lab shares neither client nor project records with your token', 'info')];
    }
    return [
      new MessageNode('clients/note', 'This lab does not share client records; showing projects', 'info'),
      ...(await pagedChildren('clients/projects', projects, (project) => new ProjectNode(this, project, 'clients'), 'No projects in your access scope', 'projects')),
    ];
  }

  async clientChildren(node: ClientNode): Promise<LabNode[]> {
    const clientId = node.client.client_id;
    const projects = this.list(`client:${clientId}:projects`, (api, page) => api.listProjects({ clientId, page }), (project) => project.project_id);
    await projects.ensureLoaded();
    if (!notOffered(projects)) {
      return pagedChildren(node.id, projects, (project) => new ProjectNode(this, project, node.id), 'No projects for this client', 'projects');
    }
    const reports = this.list(`client:${clientId}:reports`, (api, page) => api.listReports({ clientId, page }), (report) => report.report_id);
    return [
      new MessageNode(`${node.id}/note`, 'Projects are not enabled for this lab; showing the client’s reports', 'info'),
      ...(await pagedChildren(`${node.id}/reports`, reports, (report) => new ReportNode(report, node.id), 'No published reports for this client', 'reports')),
    ];
  }

  async projectChildren(node: ProjectNode): Promise<LabNode[]> {
    const projectId = node.project.project_id;
    const reports = this.list(`project:${projectId}:reports`, (api, page) => api.listReports({ projectId, page }), (report) => report.report_id);
    return pagedChildren(node.id, reports, (report) => new ReportNode(report, node.id), 'No published reports for this project', 'reports');
  }
}
