import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import type { UssdDebugRecord, UssdSessionList } from '@dmrv/contracts';
import { BoundedString } from '../contract/parameter-limits';
import { SESSION_ID_MAX } from '../contract/ussd-fields';

// The session endpoints' parameter and answers, for the validation pipe and the OpenAPI document.

export class SessionIdParameter {
  @ApiProperty({ maxLength: SESSION_ID_MAX })
  @BoundedString('sessionId')
  sessionId!: string;
}

@ApiSchema({ name: 'SessionContext' })
class SessionContextView {
  @ApiProperty() sessionId!: string;
  @ApiProperty() phoneNumber!: string;
  @ApiProperty({ description: 'The last screen shown, without its CON/END prefix' }) message!: string;
  @ApiProperty() isAuthenticated!: boolean;
}

@ApiSchema({ name: 'SessionDebugInfo' })
class SessionDebugInfoView {
  @ApiProperty({ description: 'The menu screen the session is on' }) state!: string;
  @ApiProperty({ type: () => SessionContextView }) context!: SessionContextView;
  @ApiProperty({ enum: ['active', 'ended'] }) status!: 'active' | 'ended';
}

@ApiSchema({ name: 'SessionDebug' })
export class SessionDebugView implements UssdDebugRecord {
  @ApiProperty() sessionId!: string;
  @ApiProperty({ type: () => SessionDebugInfoView }) debugInfo!: SessionDebugInfoView;
  @ApiProperty({ type: 'string', isArray: true, description: 'Ids of the active sessions (at most 1000)' })
  activeSessions!: string[];
}

@ApiSchema({ name: 'SessionList' })
export class SessionListView implements UssdSessionList {
  @ApiProperty({ type: 'string', isArray: true, description: 'Ids of the active sessions (at most 1000)' })
  activeSessions!: string[];
  @ApiProperty({ type: 'integer' }) count!: number;
}
