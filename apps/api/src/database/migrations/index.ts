import { InitialSchema1795269600000 } from './1795269600000-InitialSchema';
import { Inventory1795273200000 } from './1795273200000-Inventory';
import { ScanIngest1795276800000 } from './1795276800000-ScanIngest';
import { Notifications1795280400000 } from './1795280400000-Notifications';
import { Trust1795284000000 } from './1795284000000-Trust';
import { TrustVerdicts1795287600000 } from './1795287600000-TrustVerdicts';
import { ScanHistoryFingerprintIndex1795291200000 } from './1795291200000-ScanHistoryFingerprintIndex';
import { DiscoveryNetworks1795294800000 } from './1795294800000-DiscoveryNetworks';
import { DiscoverySweeps1795298400000 } from './1795298400000-DiscoverySweeps';
import { SessionsAndSignIn1795302000000 } from './1795302000000-SessionsAndSignIn';
import { DashboardIndexes1795305600000 } from './1795305600000-DashboardIndexes';
import { ScanRequests1795309200000 } from './1795309200000-ScanRequests';
import { EndpointStarttls1795312800000 } from './1795312800000-EndpointStarttls';
import { CountChangeSignal1795320000000 } from './1795320000000-CountChangeSignal';
import { SignInChangeSignal1795323600000 } from './1795323600000-SignInChangeSignal';
import { UserLastSignIn1795327200000 } from './1795327200000-UserLastSignIn';
import { OidcLoginCodeBrowser1795330800000 } from './1795330800000-OidcLoginCodeBrowser';
import { EndpointListSorts1795345200000 } from './1795345200000-EndpointListSorts';
import { AlertLastRun1795348800000 } from './1795348800000-AlertLastRun';
import { NotificationOutbox1795359600000 } from './1795359600000-NotificationOutbox';
import { CalendarChangeSignal1795402800000 } from './1795402800000-CalendarChangeSignal';
import { RenewalInfo1795800000000 } from './1795800000000-RenewalInfo';
import { Rotations1795900000000 } from './1795900000000-Rotations';
import { NotificationChannels1796000000000 } from './1796000000000-NotificationChannels';
import { RevocationAndFindings1796100000000 } from './1796100000000-RevocationAndFindings';
import { PresentedChainComplete1796200000000 } from './1796200000000-PresentedChainComplete';
import { LinkSupersededBy1796400000000 } from './1796400000000-LinkSupersededBy';
import { SetBasedLinkUpkeep1796403600000 } from './1796403600000-SetBasedLinkUpkeep';
import { OcspAnswerReuse1796600000000 } from './1796600000000-OcspAnswerReuse';
import { SettingsChangeSignal1796603600000 } from './1796603600000-SettingsChangeSignal';
import { FindingCountChangeSignal1796607200000 } from './1796607200000-FindingCountChangeSignal';
import { ActiveLinkCountChangeSignal1796800000000 } from './1796800000000-ActiveLinkCountChangeSignal';

/** Every migration in order. Landed migrations are immutable: add a new one instead. */
export const MIGRATIONS = [
  InitialSchema1795269600000,
  Inventory1795273200000,
  ScanIngest1795276800000,
  Notifications1795280400000,
  Trust1795284000000,
  TrustVerdicts1795287600000,
  ScanHistoryFingerprintIndex1795291200000,
  DiscoveryNetworks1795294800000,
  DiscoverySweeps1795298400000,
  SessionsAndSignIn1795302000000,
  DashboardIndexes1795305600000,
  ScanRequests1795309200000,
  EndpointStarttls1795312800000,
  CountChangeSignal1795320000000,
  SignInChangeSignal1795323600000,
  UserLastSignIn1795327200000,
  OidcLoginCodeBrowser1795330800000,
  EndpointListSorts1795345200000,
  AlertLastRun1795348800000,
  NotificationOutbox1795359600000,
  CalendarChangeSignal1795402800000,
  RenewalInfo1795800000000,
  Rotations1795900000000,
  NotificationChannels1796000000000,
  RevocationAndFindings1796100000000,
  PresentedChainComplete1796200000000,
  LinkSupersededBy1796400000000,
  SetBasedLinkUpkeep1796403600000,
  OcspAnswerReuse1796600000000,
  SettingsChangeSignal1796603600000,
  FindingCountChangeSignal1796607200000,
  ActiveLinkCountChangeSignal1796800000000,
];
