/**
 * The address a request came from, for per-IP rate limits. The peer is the one address
 * nobody can forge: the socket's on the local server, the one API Gateway or the function
 * URL saw on Lambda (the adapter hands the event over as `c.env.event`). X-Forwarded-For
 * is the client's to write — a proxy appends to it, it does not replace it — so it is read
 * only when the operator says how many proxies of theirs stand in front
 * (SVC_TRUSTED_PROXY_HOPS): the client is then the address the outermost of them saw,
 * that many entries from the right of the chain that ends with the peer.
 */
export function clientIp(headers: Headers, env: unknown, trustedProxyHops: number): string {
  const peer = peerOf(env);
  if (trustedProxyHops <= 0 || !peer) return peer?.address ?? 'unknown';
  const chain = (headers.get('x-forwarded-for') ?? '').split(',').map((s) => s.trim()).filter(Boolean);
  // On Lambda the platform may append the address it saw, the peer itself: one hop, not two.
  if (peer.platform && chain.at(-1) === peer.address) chain.pop();
  chain.push(peer.address);
  return chain[Math.max(0, chain.length - 1 - trustedProxyHops)]!;
}

interface Peer {
  address: string;
  /** Given by the Lambda event (the platform's own view), not a socket. */
  platform: boolean;
}

function peerOf(env: unknown): Peer | undefined {
  const e = env as {
    incoming?: { socket?: { remoteAddress?: string } };
    event?: { requestContext?: { http?: { sourceIp?: string }; identity?: { sourceIp?: string } } };
  } | undefined;
  const socket = e?.incoming?.socket?.remoteAddress;
  if (socket) return { address: socket, platform: false };
  // Function URLs and HTTP APIs (payload 2.0): requestContext.http; REST APIs (1.0): requestContext.identity.
  const context = e?.event?.requestContext;
  const source = context?.http?.sourceIp ?? context?.identity?.sourceIp;
  return source ? { address: source, platform: true } : undefined;
}
