// The review page's entry: hash routes to views, errors and the way back to signing in in one place.
import { ApiError, SignInNeeded, showSignIn } from './api.js';
import { conversationsView, conversationView, interactionsView, interactionView } from './browser.js';
import { h, parseHash, show } from './dom.js';
import { queueView } from './queue.js';
import { reviewView } from './review.js';

async function route() {
  const { parts, params } = parseHash(location.hash);
  const [section, id] = parts;
  try {
    if (section === 'reviews' && id) await reviewView(id);
    else if (section === 'interactions' && id) await interactionView(id);
    else if (section === 'interactions') await interactionsView(params);
    else if (section === 'conversations' && id) await conversationView(id, params);
    else if (section === 'conversations') await conversationsView();
    else await queueView(params);
  } catch (error) {
    if (error instanceof SignInNeeded) showSignIn();
    else if (error instanceof ApiError && error.status === 404) show('Not found', h('p', {}, error.message));
    else
      show('Something went wrong', h('p', { role: 'alert' }, error instanceof Error ? error.message : String(error)));
  }
}

window.addEventListener('hashchange', route);
route();
