// Wire shapes of the USSD gateway, shared by the app, its tests and the benchmarks.

/** Body of POST /api/ussd (JSON or form-encoded); aggregators may add fields such as `networkCode`. */
export interface UssdSessionRequest {
  sessionId: string;
  serviceCode: string;
  phoneNumber: string;
  /** Every input of the session so far, joined by `*`; empty on the initial dial. */
  text: string;
}

/** `CON …` keeps the session open, `END …` closes it. */
export type UssdReply = `CON ${string}` | `END ${string}`;

export interface UssdDebugRecord {
  sessionId: string;
  debugInfo: {
    state: string;
    context: {
      sessionId: string;
      phoneNumber: string;
      /** The last screen shown, without its CON/END prefix. */
      message: string;
      isAuthenticated: boolean;
    };
    status: 'active' | 'ended';
  };
  activeSessions: string[];
}

export interface UssdSessionList {
  activeSessions: string[];
  count: number;
}

export interface UssdRootRecord {
  status: string;
  message: string;
  environment: string;
  timestamp: string;
}

export interface UssdHealthRecord {
  status: 'ok' | 'error';
  environment: string;
  timestamp: string;
  /** Seconds since the process started. */
  uptime: number;
  database: 'connected' | 'disconnected';
  redis: 'connected' | 'disconnected' | 'not configured';
}
