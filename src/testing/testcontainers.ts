// user-group-mock/testcontainers: the mock's image as a Testcontainers module (testcontainers is a peer dependency
// of this entry point: 11.x runs on Node 20.19 and later, 12.x needs Node 22.19 or later).
import { AbstractStartedContainer, GenericContainer, type StartedTestContainer, Wait } from 'testcontainers';
import { connectMock, type RemoteMock } from '../index.js';
import type { MockHandle } from './contractFixture.js';

/** The port the image's mock listens on. */
const port = 4010;

/**
 * The image of `npm run image` (`user-group-mock:latest` unless another is named), run in memory with an admin key,
 * ready once its keyless health probe answers: `const mock = await new UserGroupMockContainer().start()`, then
 * `await mock.connect()` for the same awaitable controls as `createMockServer()`'s.
 */
export class UserGroupMockContainer extends GenericContainer {
  #adminKey = 'test-admin-key';

  constructor(image = 'user-group-mock:latest') {
    super(image);
    this.withExposedPorts(port)
      .withCommand(['serve', '--in-memory'])
      .withWaitStrategy(Wait.forHttp('/__admin/health/ready', port).forStatusCode(200));
  }

  /** The key `/__admin` calls send as `X-Admin-Key` (USER_GROUP_MOCK_ADMIN_KEY); `test-admin-key` unless given. */
  withAdminKey(key: string): this {
    this.#adminKey = key;
    return this;
  }

  override async start(): Promise<StartedUserGroupMockContainer> {
    this.withEnvironment({ USER_GROUP_MOCK_ADMIN_KEY: this.#adminKey });
    return new StartedUserGroupMockContainer(await super.start(), this.#adminKey);
  }
}

export class StartedUserGroupMockContainer extends AbstractStartedContainer {
  readonly adminKey: string;

  constructor(started: StartedTestContainer, adminKey: string) {
    super(started);
    this.adminKey = adminKey;
  }

  /** The mock's base URL on this machine, e.g. `http://localhost:32768`. */
  getUrl(): string {
    return `http://${this.getHost()}:${this.getMappedPort(port)}`;
  }

  /** The mock's controls over `/__admin`, the same as `createMockServer()`'s. */
  connect(): Promise<RemoteMock> {
    return connectMock({ url: this.getUrl(), adminKey: this.adminKey });
  }
}

/**
 * Starts the image and hands back its controls, whose `close()` also stops the container: what
 * `useUserGroupMock({ start: startUserGroupMockContainer })` takes.
 */
export async function startUserGroupMockContainer(image?: string): Promise<MockHandle> {
  const container = await new UserGroupMockContainer(image).start();
  try {
    const remote = await container.connect();
    return {
      ...remote,
      // The container is this file's own: no other client shares it.
      shared: false,
      close: async () => {
        await remote.close();
        await container.stop();
      },
    };
  } catch (error) {
    await container.stop();
    throw error;
  }
}
