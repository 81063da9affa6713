export {
  createUserGroupClient,
  type UserGroupClient,
  type UserGroupClientOptions,
} from './createUserGroupClient.js';
export {
  type ClientErrorCode,
  isUserGroupServiceError,
  UserGroupServiceError,
} from './UserGroupServiceError.js';
