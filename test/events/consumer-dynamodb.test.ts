import { useDynamoDbLocal } from '../support/dynamodb-local.ts';
import { consumerSuite } from './consumer.suite.ts';

const ddb = useDynamoDbLocal('events');

consumerSuite('DynamoDB Local', (clock) => ddb.tableFixture({ clock }));
