import type { Page } from 'playwright-core';
import { ADMIN_EMAIL, ADMIN_PASSWORD, bearer, createUser, login, type TestApp } from '../../api/test/support/test-app';
import { browserSession, describeWithChromium, seriousViolations, signIn } from './support/web-browser';

/*
 * The Users and Audit log screens in headless Chromium against the real API: an admin creates a
 * user (the API's sentences by their fields), changes their role, disables them (their JWT gets
 * 401) and deletes them; the API's refusal to lose the last administrator shows by the action;
 * the audit log lists those changes and filters them; an operator gets neither screen.
 */
interface AuditPage {
  items: { action: string; targetId: string | null; details: Record<string, unknown> }[];
  totalCount: number;
}

describeWithChromium('the Users and Audit log screens in a browser', () => {
  const session = browserSession();
  let t: TestApp;
  let page: Page;
  beforeEach(() => {
    ({ app: t, page } = session);
  });

  const signInAsAdmin = async () => {
    await page.goto('/login');
    await signIn(page, ADMIN_EMAIL, ADMIN_PASSWORD);
    await page.getByRole('navigation', { name: 'Main' }).waitFor();
  };
  const openFromNav = async (link: string, heading: string) => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: link, exact: true }).click();
    await page.getByRole('heading', { name: heading, level: 1 }).waitFor();
  };
  const status = () => page.getByRole('status');

  it('lets an admin create a user, change their role, disable and delete them', async () => {
    await signInAsAdmin();
    await openFromNav('Users', 'Users');
    await page.getByRole('cell', { name: `${ADMIN_EMAIL} (you)` }).waitFor();
    expect(await seriousViolations(page)).toEqual([]);

    // A taken address: the API's 409 sentence by the e-mail field, nothing created.
    await page.getByRole('link', { name: 'Add user' }).click();
    await page.getByRole('heading', { name: 'New user', level: 1 }).waitFor();
    const form = page.getByRole('form', { name: 'New user' });
    await form.getByLabel('E-mail', { exact: true }).fill(ADMIN_EMAIL);
    await form.getByLabel(/^Password/).fill('long-enough-password');
    await form.getByRole('button', { name: 'Create user' }).click();
    const emailError = page.locator('#new-user-email-error');
    await emailError.waitFor();
    expect(await emailError.textContent()).toBe('A user with this e-mail address already exists.');
    expect(await form.getByLabel('E-mail', { exact: true }).getAttribute('aria-describedby')).toBe('new-user-email-error');
    expect(await form.getByLabel('E-mail', { exact: true }).getAttribute('aria-invalid')).toBe('true');

    // A short password: named by the form, by the password field, before anything is sent.
    const email = 'dana.ops@certkeeper.test';
    const password = 'dana-password-1';
    await form.getByLabel('E-mail', { exact: true }).fill(email);
    await form.getByLabel(/^Name/).fill('Dana Ops');
    await form.getByLabel('Role', { exact: true }).selectOption('viewer');
    await form.getByLabel(/^Password/).fill('short');
    await form.getByRole('button', { name: 'Create user' }).click();
    const passwordError = page.locator('#new-user-password-error');
    await passwordError.waitFor();
    expect(await passwordError.textContent()).toBe('The password is 5 characters long: at least 8.');
    expect(await emailError.count()).toBe(0);
    expect(await seriousViolations(page)).toEqual([]);
    const admin = await login(t);
    const before = (await t.http.get('/api/v1/users').set(bearer(admin)).expect(200)).body as { email: string }[];
    expect(before.map((user) => user.email)).not.toContain(email);
    const ssoOnly = 'sso.only@certkeeper.test';
    await t.http.post('/api/v1/users').set(bearer(admin)).send({ email: ssoOnly, role: 'viewer' }).expect(201);

    // Created: back on the list, which announces it; the user signs in through the API.
    await form.getByLabel(/^Password/).fill(password);
    await form.getByRole('button', { name: 'Create user' }).click();
    await page.getByRole('heading', { name: 'Users', level: 1 }).waitFor();
    await status()
      .filter({ hasText: `User ${email} created.` })
      .waitFor();
    const row = page.getByRole('row').filter({ has: page.getByRole('link', { name: email }) });
    await row.getByRole('cell', { name: 'Viewer', exact: true }).waitFor();
    await row.getByRole('cell', { name: 'Enabled', exact: true }).waitFor();
    await row.getByRole('cell', { name: 'Dana Ops', exact: true }).waitFor();
    await row.getByRole('cell', { name: 'password', exact: true }).waitFor();
    const ssoOnlyRow = page.getByRole('row').filter({ has: page.getByRole('link', { name: ssoOnly }) });
    await ssoOnlyRow.getByRole('cell', { name: 'OIDC, not signed in yet', exact: true }).waitFor();
    await ssoOnlyRow.getByRole('cell', { name: 'never', exact: true }).waitFor();
    // The administrator signed in to get here: a time, not "never".
    const adminRow = page.getByRole('row').filter({ hasText: `${ADMIN_EMAIL} (you)` });
    expect(await adminRow.getByRole('cell', { name: 'never', exact: true }).count()).toBe(0);
    const userToken = await login(t, email, password);
    const me = (await t.http.get('/api/v1/me').set(bearer(userToken)).expect(200)).body as { id: string; role: string };
    expect(me.role).toBe('viewer');

    // Role changed on the edit screen; the API reads it back.
    await row.getByRole('link', { name: email }).click();
    await page.getByRole('heading', { name: `User ${email}`, level: 1 }).waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    const edit = page.getByRole('form', { name: 'Edit user' });
    await edit.getByLabel('Role', { exact: true }).selectOption('operator');
    await edit.getByRole('button', { name: 'Save user' }).click();
    await status()
      .filter({ hasText: /^Saved\.$/ })
      .waitFor();
    const read = async () =>
      (await t.http.get(`/api/v1/users/${me.id}`).set(bearer(admin)).expect(200)).body as { role: string; disabled: boolean };
    expect((await read()).role).toBe('operator');
    await t.http.get('/api/v1/me').set(bearer(userToken)).expect(200);

    // Disabled: the screen says their sessions ended, and the JWT from before gets 401.
    await edit.getByLabel('Enabled (may sign in)').uncheck();
    await edit.getByRole('button', { name: 'Save user' }).click();
    await status().filter({ hasText: 'Saved. Their signed-in sessions have ended.' }).waitFor();
    expect(await read()).toMatchObject({ role: 'operator', disabled: true });
    await t.http.get('/api/v1/me').set(bearer(userToken)).expect(401);
    await t.http.post('/api/v1/auth/login').send({ email, password }).expect(401);
    expect(await edit.getByLabel('Enabled (may sign in)').isChecked()).toBe(false);
    expect(await seriousViolations(page)).toEqual([]);

    // Deleted after confirming: back on the list without them; the API no longer knows them.
    await page.getByRole('button', { name: `Delete user ${email}` }).click();
    await page.getByText('Delete this user with their API keys and sessions? This cannot be undone.').waitFor();
    await page.getByRole('button', { name: `Yes, delete ${email}` }).click();
    await status()
      .filter({ hasText: `User ${email} deleted.` })
      .waitFor();
    await page.getByRole('cell', { name: `${ADMIN_EMAIL} (you)` }).waitFor();
    expect(await page.getByRole('link', { name: email }).count()).toBe(0);
    await t.http.get(`/api/v1/users/${me.id}`).set(bearer(admin)).expect(404);
  });

  it('shows the API refusing to demote or delete the last administrator by the action', async () => {
    await signInAsAdmin();
    await openFromNav('Users', 'Users');
    await page.getByRole('link', { name: ADMIN_EMAIL }).click();
    await page.getByRole('heading', { name: `User ${ADMIN_EMAIL}`, level: 1 }).waitFor();
    await page.getByText('This is your own account.', { exact: false }).first().waitFor();

    const edit = page.getByRole('form', { name: 'Edit user' });
    await edit.getByLabel('Role', { exact: true }).selectOption('viewer');
    await edit.getByRole('button', { name: 'Save user' }).click();
    const refusal = edit.getByRole('alert');
    await refusal.waitFor();
    expect(await refusal.textContent()).toBe('This is the last enabled administrator: promote or enable another administrator first.');

    // Deleting oneself asks with a warning of its own, and the API's sentence shows by the action.
    await page.getByRole('button', { name: `Delete user ${ADMIN_EMAIL}` }).click();
    await page.getByText('This is your own account: deleting it signs you out for good.', { exact: false }).waitFor();
    await page.getByRole('button', { name: `Yes, delete ${ADMIN_EMAIL}` }).click();
    const deleteRefusal = page.getByRole('region', { name: 'Delete' }).getByRole('alert');
    await deleteRefusal.waitFor();
    expect(await deleteRefusal.textContent()).toBe(
      'This is the last enabled administrator: promote or enable another administrator first.',
    );
    const admin = await login(t);
    const me = (await t.http.get('/api/v1/me').set(bearer(admin)).expect(200)).body as { role: string };
    expect(me.role).toBe('admin');
    expect(await seriousViolations(page)).toEqual([]);
  });

  it('lists the user changes in the audit log and filters them by action and target', async () => {
    const admin = await login(t);
    const created = (
      await t.http
        .post('/api/v1/users')
        .set(bearer(admin))
        .send({ email: 'audited@certkeeper.test', name: 'Audited', role: 'viewer', password: 'audited-password-1' })
        .expect(201)
    ).body as { id: string };
    await t.http.put(`/api/v1/users/${created.id}`).set(bearer(admin)).send({ role: 'operator' }).expect(200);
    await t.http.delete(`/api/v1/users/${created.id}`).set(bearer(admin)).expect(204);
    const all = (await t.http.get('/api/v1/audit').set(bearer(admin)).expect(200)).body as AuditPage;

    await signInAsAdmin();
    await openFromNav('Audit', 'Audit log');
    await status()
      .filter({ hasText: `Entries 1–${Math.min(all.totalCount, 50)} of ${all.totalCount}` })
      .waitFor();
    const rowsFor = (action: string) => page.getByRole('row').filter({ has: page.getByRole('cell', { name: action, exact: true }) });
    for (const action of ['user:create', 'user:update', 'user:delete']) expect(await rowsFor(action).count()).toBeGreaterThan(0);
    // The details read as key and value: the role change of the update above.
    const update = rowsFor('user:update').filter({ hasText: created.id });
    await update
      .getByRole('definition')
      .filter({ hasText: /^operator$/ })
      .waitFor();
    expect(await update.getByRole('term').allTextContents()).toContain('role');
    expect(await seriousViolations(page)).toEqual([]);

    // Filtered by action: only user:delete entries, as many as the API counts; the filter is in the address.
    await page.getByLabel('Action', { exact: true }).fill('user:delete');
    await page.getByRole('button', { name: 'Apply' }).click();
    const deletes = (await t.http.get('/api/v1/audit').query({ action: 'user:delete' }).set(bearer(admin)).expect(200)).body as AuditPage;
    expect(deletes.totalCount).toBeLessThan(all.totalCount);
    await status()
      .filter({ hasText: `Entries 1–${deletes.totalCount} of ${deletes.totalCount}` })
      .waitFor();
    expect(new URL(page.url()).searchParams.get('action')).toBe('user:delete');
    expect(await page.locator('tbody tr').count()).toBe(deletes.totalCount);
    expect(await rowsFor('user:delete').count()).toBe(deletes.totalCount);

    // The history of one target: its create, update and delete, newest first.
    await page.getByRole('button', { name: 'Clear filters' }).click();
    await page
      .getByRole('button', { name: `History of user ${created.id}` })
      .first()
      .click();
    await status().filter({ hasText: 'Entries 1–3 of 3' }).waitFor();
    expect(await page.locator('tbody tr td:nth-child(3)').allTextContents()).toEqual(['user:delete', 'user:update', 'user:create']);
    expect(new URL(page.url()).searchParams.get('targetId')).toBe(created.id);

    // The address alone restores the filtered view (a bookmark, a reload).
    await page.goto(`/audit?action=user%3Acreate&targetId=${created.id}`);
    await status().filter({ hasText: 'Entries 1–1 of 1' }).waitFor();
    expect(await page.getByLabel('Action', { exact: true }).inputValue()).toBe('user:create');
    expect(await seriousViolations(page)).toEqual([]);
  });

  it('offers an operator neither the users nor the audit log', async () => {
    const operator = await createUser(t, 'operator');
    const adminRequests: string[] = [];
    page.on('request', (request) => {
      const path = new URL(request.url()).pathname;
      if (path.startsWith('/api/v1/users') || path.startsWith('/api/v1/audit')) adminRequests.push(path);
    });
    await page.goto('/login');
    await signIn(page, operator.email, operator.password);
    const nav = page.getByRole('navigation', { name: 'Main' });
    await nav.getByRole('link', { name: 'Endpoints' }).waitFor();
    expect(await nav.getByRole('link', { name: 'Users', exact: true }).count()).toBe(0);
    expect(await nav.getByRole('link', { name: 'Audit', exact: true }).count()).toBe(0);

    for (const [path, heading] of [
      ['/users', 'Users'],
      ['/users/new', 'Users'],
      ['/audit', 'Audit log'],
    ]) {
      await page.goto(path);
      await page.getByRole('heading', { name: heading, level: 1 }).waitFor();
      await page.getByRole('alert').filter({ hasText: 'Not allowed: this screen is for administrators.' }).waitFor();
      expect(await page.getByRole('table').count()).toBe(0);
      expect(await page.getByRole('button', { name: /Create user|Save user|Delete|Apply/ }).count()).toBe(0);
      expect(await page.getByRole('link', { name: 'Add user' }).count()).toBe(0);
      expect(await seriousViolations(page)).toEqual([]);
    }
    expect(adminRequests).toEqual([]);
  });
});
