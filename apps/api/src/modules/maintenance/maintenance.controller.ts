import { Controller, Get, HttpCode, Param, Post } from '@nestjs/common';
import { ApiConflictResponse, ApiOkResponse, ApiOperation, ApiProperty, ApiTags } from '@nestjs/swagger';
import { RequirePermission } from '../../common/auth/route-access';
import { Actor } from '../audit/actor.decorator';
import type { ActorContext } from '../audit/audit.service';
import { MaintenanceService, type TaskResult } from './maintenance.service';

export class MaintenanceTaskDto {
  @ApiProperty({ enum: ['refresh-root-stores', 'purge-history', 'prune-certificates', 'purge-alert-records', 'refresh-renewal-info'] })
  name!: string;
  @ApiProperty({ description: 'Cron expression (UTC).' }) schedule!: string;
  @ApiProperty({ format: 'date-time', type: String, nullable: true }) lastRunAt!: string | null;
  @ApiProperty({ type: String, nullable: true, description: '`succeeded` or `failed: <reason>`.' }) lastOutcome!: string | null;
  @ApiProperty({ type: 'object', nullable: true, additionalProperties: { type: 'integer' } }) lastCounts!: Record<string, number> | null;
  @ApiProperty({ description: 'Whether a run of the task is going now, on this or another replica.' }) running!: boolean;
}

export class MaintenanceResultDto {
  @ApiProperty() name!: string;
  @ApiProperty() outcome!: string;
  @ApiProperty({ type: 'object', additionalProperties: { type: 'integer' } }) counts!: Record<string, number>;
}

@ApiTags('maintenance')
@Controller('maintenance/tasks')
export class MaintenanceController {
  constructor(private readonly maintenance: MaintenanceService) {}

  @Get()
  @ApiOperation({
    summary: 'List maintenance tasks',
    description:
      'Needs `settings:view`. ' +
      'The nightly tasks in pipeline order (refresh-root-stores, purge-history, prune-certificates, purge-alert-records), then the ' +
      'hourly refresh-renewal-info and check-revocation, each with its schedule (cron, UTC), the time, outcome and counts of its last run, and whether a ' +
      'run is going now (on any replica).',
  })
  @RequirePermission('settings:view')
  @ApiOkResponse({ type: [MaintenanceTaskDto] })
  async listMaintenanceTasks(): Promise<MaintenanceTaskDto[]> {
    return (await this.maintenance.listTasks()).map((task) => ({ ...task, lastRunAt: task.lastRunAt?.toISOString() ?? null }));
  }

  @Post(':name/run')
  @ApiOperation({
    summary: 'Run a maintenance task now',
    description:
      'Needs `settings:edit`. ' +
      'Runs the named task at once and answers its outcome (`succeeded` or `failed: <reason>`, a failure being an answer, not an error ' +
      'status) and counts. 404 for an unknown task, 409 while a run of it is going on any replica.',
  })
  @HttpCode(200)
  @RequirePermission('settings:edit')
  @ApiOkResponse({ type: MaintenanceResultDto })
  @ApiConflictResponse({ description: 'A run of this task is already going (on this or another replica).' })
  runMaintenanceTask(@Param('name') name: string, @Actor() actor: ActorContext): Promise<TaskResult> {
    return this.maintenance.runTask(name, actor);
  }
}
