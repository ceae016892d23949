/** The memory store against the TurnlogStore contract. */
import { createMemoryStore } from '../../src/store/memory.js';
import { describeStoreContract } from './store.contract.js';

describeStoreContract('memory', (limits) => createMemoryStore(limits));
