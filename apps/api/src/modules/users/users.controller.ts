import { Body, Controller, Delete, Get, HttpCode, Param, ParseUUIDPipe, Post, Put } from '@nestjs/common';
import { ApiConflictResponse, ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { RequirePermission } from '../../common/auth/route-access';
import { Actor } from '../audit/actor.decorator';
import type { ActorContext } from '../audit/audit.service';
import { CreateUserDto, toUserResponse, UpdateUserDto, UserResponseDto } from './users.dto';
import { UsersService } from './users.service';

@ApiTags('users')
@Controller('users')
export class UsersController {
  constructor(private readonly users: UsersService) {}

  @Get()
  @ApiOperation({ summary: 'List users', description: 'Needs `users:view`. Every user, by e-mail address.' })
  @RequirePermission('users:view')
  @ApiOkResponse({ type: [UserResponseDto] })
  async listUsers(): Promise<UserResponseDto[]> {
    return (await this.users.listUsers()).map(toUserResponse);
  }

  @Post()
  @ApiOperation({
    summary: 'Create a user',
    description:
      'Needs `users:edit`. `notify` (e-mail alerts) defaults to true; a user created without a password cannot sign in with one. ' +
      'Writes a `user:create` audit entry. ' +
      '409 when the e-mail address is taken.',
  })
  @RequirePermission('users:edit')
  @ApiCreatedResponse({ type: UserResponseDto })
  @ApiConflictResponse({ description: 'The e-mail address is taken.' })
  async createUser(@Body() dto: CreateUserDto, @Actor() actor: ActorContext): Promise<UserResponseDto> {
    return toUserResponse(await this.users.createUser(dto, actor));
  }

  @Get(':id')
  @ApiOperation({
    summary: 'Get a user',
    description: "Needs `users:view`. The user's e-mail, name, role, disabled and notify flags, and creation time. 404 for an unknown id.",
  })
  @RequirePermission('users:view')
  @ApiOkResponse({ type: UserResponseDto })
  async getUser(@Param('id', ParseUUIDPipe) id: string): Promise<UserResponseDto> {
    return toUserResponse(await this.users.getUser(id));
  }

  @Put(':id')
  @ApiOperation({
    summary: 'Update a user',
    description:
      'Needs `users:edit`. Changes only what it names; `password: null` removes the password. ' +
      'Disabling a user stops their tokens and API keys at once. A new password or disabling ends all their signed-in sessions ' +
      '(their JWTs get 401); `revokeApiKeys: true` also deletes their API keys. Writes a `user:update` audit entry. ' +
      '409 when the e-mail address is taken or the change would leave no enabled administrator.',
  })
  @RequirePermission('users:edit')
  @ApiOkResponse({ type: UserResponseDto })
  @ApiConflictResponse({ description: 'The e-mail address is taken, or the change would leave no enabled administrator.' })
  async updateUser(
    @Param('id', ParseUUIDPipe) id: string,
    @Body() dto: UpdateUserDto,
    @Actor() actor: ActorContext,
  ): Promise<UserResponseDto> {
    return toUserResponse(await this.users.updateUser(id, dto, actor));
  }

  @Delete(':id')
  @ApiOperation({
    summary: 'Delete a user',
    description:
      'Needs `users:edit`. Deletes the user with their API keys and sessions, and writes a `user:delete` audit entry. ' +
      '409 when they are the last enabled administrator.',
  })
  @HttpCode(204)
  @RequirePermission('users:edit')
  @ApiNoContentResponse()
  @ApiConflictResponse({ description: 'The user is the last enabled administrator.' })
  async deleteUser(@Param('id', ParseUUIDPipe) id: string, @Actor() actor: ActorContext): Promise<void> {
    await this.users.deleteUser(id, actor);
  }
}
