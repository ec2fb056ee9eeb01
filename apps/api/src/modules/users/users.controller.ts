import { Body, Controller, Delete, Get, HttpCode, Param, ParseUUIDPipe, Post, Put } from '@nestjs/common';
import { ApiConflictResponse, ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { RequirePermission } from '../../common/auth/route-access';
import { CreateUserDto, toUserResponse, UpdateUserDto, UserResponseDto } from './users.dto';
import { UsersService } from './users.service';

@ApiTags('users')
@Controller('users')
export class UsersController {
  constructor(private readonly users: UsersService) {}

  @Get()
  @RequirePermission('users:view')
  @ApiOkResponse({ type: [UserResponseDto] })
  async listUsers(): Promise<UserResponseDto[]> {
    return (await this.users.listUsers()).map(toUserResponse);
  }

  @Post()
  @RequirePermission('users:edit')
  @ApiCreatedResponse({ type: UserResponseDto })
  @ApiConflictResponse({ description: 'The e-mail address is taken.' })
  async createUser(@Body() dto: CreateUserDto): Promise<UserResponseDto> {
    return toUserResponse(await this.users.createUser(dto));
  }

  @Get(':id')
  @RequirePermission('users:view')
  @ApiOkResponse({ type: UserResponseDto })
  async getUser(@Param('id', ParseUUIDPipe) id: string): Promise<UserResponseDto> {
    return toUserResponse(await this.users.getUser(id));
  }

  @Put(':id')
  @RequirePermission('users:edit')
  @ApiOkResponse({ type: UserResponseDto })
  @ApiConflictResponse({ description: 'The e-mail address is taken, or the change would leave no enabled administrator.' })
  async updateUser(@Param('id', ParseUUIDPipe) id: string, @Body() dto: UpdateUserDto): Promise<UserResponseDto> {
    return toUserResponse(await this.users.updateUser(id, dto));
  }

  @Delete(':id')
  @HttpCode(204)
  @RequirePermission('users:edit')
  @ApiNoContentResponse()
  @ApiConflictResponse({ description: 'The user is the last enabled administrator.' })
  async deleteUser(@Param('id', ParseUUIDPipe) id: string): Promise<void> {
    await this.users.deleteUser(id);
  }
}
