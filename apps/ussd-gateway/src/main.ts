import './instrumentation';
import { runService } from '@dmrv/http-kit';
import { bootstrap } from './bootstrap';

runService('ussd-gateway', bootstrap);
