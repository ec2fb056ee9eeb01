import { AlertLastRunEntity } from '../modules/alerts/alert-last-run.entity';
import { NotificationDeliveryEntity } from '../modules/alerts/notification-delivery.entity';
import { ChannelDeliveryEntity } from '../modules/channels/channel-delivery.entity';
import { NotificationChannelEntity } from '../modules/channels/notification-channel.entity';
import { PagerDutyResolutionEntity } from '../modules/channels/pagerduty-resolution.entity';
import { ApiKeyEntity } from '../modules/api-keys/api-key.entity';
import { AuditEntryEntity } from '../modules/audit/audit-entry.entity';
import { DiscoveryNetworkEntity } from '../modules/discovery/network.entity';
import { DiscoverySweepEntity } from '../modules/discovery/sweep.entity';
import { DiscoverySweepReportEntity } from '../modules/discovery/sweep-report.entity';
import { DiscoveryInboxEntryEntity } from '../modules/discovery/inbox-entry.entity';
import { CertificateEntity } from '../modules/certificates/certificate.entity';
import { EndpointCertificateEntity } from '../modules/links/endpoint-certificate.entity';
import { RotationEntity } from '../modules/rotations/rotation.entity';
import { CertificateRenewalEntity } from '../modules/renewals/certificate-renewal.entity';
import { EndpointEntity } from '../modules/endpoints/endpoint.entity';
import { SamlDocumentEntity } from '../modules/scanner-protocol/saml-document.entity';
import { TlsProfileHistoryEntity } from '../modules/endpoints/tls-profile-history.entity';
import { ScanHistoryEntity } from '../modules/endpoints/scan-history.entity';
import { TlsProfileEntity } from '../modules/endpoints/tls-profile.entity';
import { MaintenanceRunEntity } from '../modules/maintenance/maintenance-run.entity';
import { ScannerEntity } from '../modules/scanners/scanner.entity';
import { RootStoreAnchorEntity } from '../modules/trust/root-store-anchor.entity';
import { RootStoreEntity } from '../modules/trust/root-store.entity';
import { SettingEntity } from '../modules/settings/setting.entity';
import { NotificationTemplateEntity } from '../modules/templates/notification-template.entity';
import { UserEntity } from '../modules/users/user.entity';
import { SessionEntity } from '../modules/sessions/session.entity';
import { LoginThrottleEntity } from '../modules/sessions/login-throttle.entity';
import { OidcLoginCodeEntity } from '../modules/oidc/oidc-login-code.entity';
import { OidcUsedStateEntity } from '../modules/oidc/oidc-used-state.entity';
import { EndpointFindingsEntity } from '../modules/findings/endpoint-findings.entity';
import { CertificateRevocationEntity } from '../modules/revocation/certificate-revocation.entity';
import { RevocationListEntity } from '../modules/revocation/revocation-list.entity';
import { RevokedSerialEntity } from '../modules/revocation/revoked-serial.entity';

/** Every entity, listed explicitly so the same list serves the app, migrations and tests. */
export const ENTITIES = [
  UserEntity,
  ApiKeyEntity,
  ScannerEntity,
  AuditEntryEntity,
  EndpointEntity,
  ScanHistoryEntity,
  TlsProfileEntity,
  CertificateEntity,
  EndpointCertificateEntity,
  RotationEntity,
  CertificateRenewalEntity,
  TlsProfileHistoryEntity,
  SamlDocumentEntity,
  SettingEntity,
  NotificationTemplateEntity,
  NotificationDeliveryEntity,
  AlertLastRunEntity,
  RootStoreEntity,
  RootStoreAnchorEntity,
  MaintenanceRunEntity,
  DiscoveryNetworkEntity,
  DiscoverySweepEntity,
  DiscoverySweepReportEntity,
  DiscoveryInboxEntryEntity,
  SessionEntity,
  LoginThrottleEntity,
  OidcLoginCodeEntity,
  OidcUsedStateEntity,
  EndpointFindingsEntity,
  CertificateRevocationEntity,
  RevocationListEntity,
  RevokedSerialEntity,
  NotificationChannelEntity,
  ChannelDeliveryEntity,
  PagerDutyResolutionEntity,
];
