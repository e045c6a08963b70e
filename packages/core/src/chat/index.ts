export { chatService, type ChatService, type ChatCaller } from './service.ts';
export { ChatRequest, ChatReply, ChatHistory, chatIntents } from './contracts.ts';
export { matchIntent, capabilities } from './intents.ts';
